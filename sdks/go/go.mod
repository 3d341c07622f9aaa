module switchboard.dev/sdk/go/switchboard

go 1.19
