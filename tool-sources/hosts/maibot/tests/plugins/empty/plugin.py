# defines no create_plugin()
X = 1
