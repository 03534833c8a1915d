module go-greet

go 1.19
