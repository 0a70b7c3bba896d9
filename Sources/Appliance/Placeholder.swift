// placeholder: the Appliance module is being written
