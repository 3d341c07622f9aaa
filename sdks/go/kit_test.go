package switchboard_test

// Test fixtures: a real Switchboard server (sdks/testkit/serve.ts, started as a child
// process), a webhook receiver that keeps raw bodies, a recording proxy and a server that
// never answers. Everything listens on 127.0.0.1.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

type kitInfo struct {
	URL           string `json:"url"`
	SandboxKey    string `json:"sandbox_key"`
	LiveKey       string `json:"live_key"`
	SandboxNumber string `json:"sandbox_number"`
	LimitedKey    string `json:"limited_key"`
	LimitedNumber string `json:"limited_number"`
	stop          func()
}

func startSwitchboard() (*kitInfo, error) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	cmd := exec.Command("node", "--import", "tsx", filepath.Join(root, "sdks", "testkit", "serve.ts"))
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("test server did not start: %w", err)
	}
	info := &kitInfo{}
	if err := json.Unmarshal(line, info); err != nil {
		return nil, err
	}
	info.stop = func() {
		stdin.Close()
		_ = cmd.Wait()
	}
	return info, nil
}

type delivery struct {
	Header http.Header
	Body   []byte
}

type receiver struct {
	*httptest.Server
	mu         sync.Mutex
	deliveries []delivery
}

func startReceiver() *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.deliveries = append(r.deliveries, delivery{Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		w.WriteHeader(200)
	}))
	return r
}

func (r *receiver) waitFor(match func(delivery) bool, timeout time.Duration) (delivery, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		for _, d := range r.deliveries {
			if match(d) {
				r.mu.Unlock()
				return d, nil
			}
		}
		r.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
	return delivery{}, fmt.Errorf("no matching delivery in %s (got %d)", timeout, len(r.deliveries))
}

type seenRequest struct {
	Method, Path string
	Header       http.Header
	Status       int
	Dropped      bool
}

// recordingProxy forwards to target and records each request and the status answered.
// dropFirstSuccessOf ("METHOD /path"): the first 2xx answer to it is swallowed and the
// connection closed, as when the network fails after the server did the work.
type recordingProxy struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seenRequest
	// failKey ("METHOD /path"): its first failTimes requests are answered with a failStatus
	// problem and never reach the server, as when the server (or its gateway) fails.
	failKey    string
	failStatus int
	failTimes  int
}

// failFirst makes the proxy answer the first `times` requests to key with a `status` problem.
func (p *recordingProxy) failFirst(key string, status, times int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failKey, p.failStatus, p.failTimes = key, status, times
}

// answerProblem writes the problem a failing server answers with, headers included.
func answerProblem(w http.ResponseWriter, status int, requestID string) {
	code := "internal_error"
	if status == http.StatusServiceUnavailable {
		code = "service_unavailable"
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Request-Id", requestID)
	// what the server's own 5xx carries, like every response
	w.Header().Set("X-Switchboard-RateLimit-Remaining", "99")
	w.Header().Set("X-Switchboard-RateLimit-Reset", "0")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"https://switchboard.dev/problems/%s","title":"%s","status":%d,"detail":"the proxy answered %d in place of the server","code":"%s","request_id":"%s"}`,
		code, code, status, status, code, requestID)
}

func startRecordingProxy(target, dropFirstSuccessOf string) *recordingProxy {
	p := &recordingProxy{}
	dropped := false
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		p.mu.Lock()
		if p.failTimes > 0 && p.failKey == req.Method+" "+req.URL.Path {
			p.failTimes--
			p.seen = append(p.seen, seenRequest{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Status: p.failStatus})
			status, n := p.failStatus, len(p.seen)
			p.mu.Unlock()
			answerProblem(w, status, fmt.Sprintf("req_proxy_%d", n))
			return
		}
		p.mu.Unlock()
		up, err := http.NewRequest(req.Method, target+req.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			panic(err)
		}
		up.Header = req.Header.Clone()
		res, err := http.DefaultClient.Do(up)
		if err != nil {
			panic(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		entry := seenRequest{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Status: res.StatusCode}
		p.mu.Lock()
		drop := !dropped && dropFirstSuccessOf == req.Method+" "+req.URL.Path && res.StatusCode < 300
		if drop {
			dropped = true
			entry.Dropped = true
		}
		p.seen = append(p.seen, entry)
		p.mu.Unlock()
		if drop {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		for name, values := range res.Header {
			w.Header()[name] = values
		}
		w.WriteHeader(res.StatusCode)
		w.Write(data)
	}))
	return p
}

func (p *recordingProxy) requests(method, path string) []seenRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []seenRequest
	for _, s := range p.seen {
		if s.Method == method && s.Path == path {
			out = append(out, s)
		}
	}
	return out
}

// silentServer accepts connections and never answers.
type silentServer struct {
	listener net.Listener
	mu       sync.Mutex
	conns    []net.Conn
	URL      string
}

func startSilentServer() *silentServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := &silentServer{listener: l, URL: "http://" + l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *silentServer) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func (s *silentServer) Close() {
	s.listener.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

func closedPortURL() string {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func hasPrefix(s, prefix string) bool { return strings.HasPrefix(s, prefix) }
