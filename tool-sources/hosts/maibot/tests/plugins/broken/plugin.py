def create_plugin(:
    pass
