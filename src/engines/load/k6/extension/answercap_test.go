package answercap

// The transport's cut on a real HTTP server on loopback (test/engines/load/k6/k6-extension-go.test.ts
// runs these with `go test`): what passes the cap, what is refused unread, what has no body, and a
// target's own PastCapHeader.

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

const limit = 1000

// serve answers GET /len/N with N bytes and its Content-Length, /chunked/N with N bytes chunked,
// /status/N with that status and a Content-Length past the cap, /spoof with a PastCapHeader of its own.
func serve(t *testing.T) *httptest.Server {
	t.Helper()
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
		n := 0
		if len(parts) > 1 {
			n, _ = strconv.Atoi(parts[1])
		}
		switch parts[0] {
		case "len":
			w.Header().Set("Content-Length", strconv.Itoa(n))
			_, _ = w.Write([]byte(strings.Repeat("x", n)))
		case "chunked":
			flusher, _ := w.(http.Flusher)
			for sent := 0; sent < n; sent += 100 {
				_, _ = w.Write([]byte(strings.Repeat("x", min(100, n-sent))))
				flusher.Flush()
			}
		case "status":
			w.Header().Set("Content-Length", strconv.Itoa(limit+1))
			w.WriteHeader(n)
			if n != http.StatusNoContent && n != http.StatusNotModified {
				_, _ = w.Write([]byte(strings.Repeat("x", limit+1)))
			}
		case "spoof":
			w.Header().Set(PastCapHeader, "read")
			_, _ = w.Write([]byte("ok"))
		}
	}))
	t.Cleanup(server.Close)
	return server
}

func get(t *testing.T, transport *cappedTransport, method, url string) (*http.Response, int) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := transport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp, len(body)
}

func capped(maxBytes int64) *cappedTransport {
	transport := &cappedTransport{inner: &http.Transport{}}
	transport.maxBytes.Store(maxBytes)
	return transport
}

func TestCut(t *testing.T) {
	server := serve(t)
	transport := capped(limit)
	cases := []struct {
		path   string
		method string
		mark   string
		size   int
	}{
		{"/len/1000", http.MethodGet, "", limit},
		{"/len/1001", http.MethodGet, "declared", 0},
		{"/chunked/1000", http.MethodGet, "", limit},
		{"/chunked/1001", http.MethodGet, "read", limit + 1},
		{"/chunked/50000", http.MethodGet, "read", limit + 1},
		{"/status/204", http.MethodGet, "", 0},
		{"/status/304", http.MethodGet, "", 0},
		{"/len/5000", http.MethodHead, "", 0},
		{"/spoof", http.MethodGet, "", 2},
	}
	for _, c := range cases {
		resp, size := get(t, transport, c.method, server.URL+c.path)
		if mark := resp.Header.Get(PastCapHeader); mark != c.mark {
			t.Errorf("%s %s: received mark %q, expected %q", c.method, c.path, mark, c.mark)
		}
		if size != c.size {
			t.Errorf("%s %s: received %d bytes, expected %d", c.method, c.path, size, c.size)
		}
	}
}

// A connection whose answer was cut is dropped, and the next request is answered whole on a new one.
func TestAfterACut(t *testing.T) {
	server := serve(t)
	transport := capped(limit)
	for _, path := range []string{"/chunked/50000", "/len/10", "/len/5000", "/len/10"} {
		get(t, transport, http.MethodGet, server.URL+path)
	}
	resp, size := get(t, transport, http.MethodGet, server.URL+"/len/10")
	if size != 10 || resp.Header.Get(PastCapHeader) != "" {
		t.Errorf("after cuts: received %d bytes, mark %q; expected 10 bytes, no mark", size, resp.Header.Get(PastCapHeader))
	}
}
