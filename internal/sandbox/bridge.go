package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// The bridge is this binary run inside a sandbox with egress: it listens
// on the sandbox's loopback, hands each connection to the bot's proxy
// through the bound unix socket, and runs the command with HTTP_PROXY and
// HTTPS_PROXY pointing at itself. Any binary importing this package (the
// bot, a test binary) becomes the bridge when started as bridgeExe with
// bridgeVar set.
func init() {
	sock := os.Getenv(bridgeVar)
	if sock == "" || len(os.Args) < 2 || os.Args[0] != bridgeExe {
		return
	}
	os.Exit(runBridge(sock, os.Args[1:]))
}

func runBridge(sock string, argv []string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "issuesmith egress bridge:", err)
		return 125
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				up, err := net.Dial("unix", sock)
				if err != nil {
					c.Close()
					return
				}
				splice(c, up, c)
			}()
		}
	}()
	url := "http://" + ln.Addr().String()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, bridgeVar+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HTTP_PROXY="+url, "HTTPS_PROXY="+url, "http_proxy="+url, "https_proxy="+url)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "issuesmith egress bridge:", err)
		return 127
	}
}
