module toolbus.dev/plugin

go 1.19
