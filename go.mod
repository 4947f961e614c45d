module github.com/hees-dev/hees

go 1.24
