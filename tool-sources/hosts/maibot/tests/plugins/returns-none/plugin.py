def create_plugin():
    return None
