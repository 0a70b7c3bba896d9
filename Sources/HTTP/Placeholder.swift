// placeholder: the HTTP module is being written
