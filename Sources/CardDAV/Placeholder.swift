// placeholder: the CardDAV module is being written
