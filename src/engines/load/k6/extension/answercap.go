// Package answercap is the harness's k6 extension (issue 36): a bounded read of answers for k6/http,
// which has none. k6/http reads every answer whole (its `none` type reads into nothing, but only after
// the VU has already read one whole to learn it is too long), so a VU's first 50 MB answer held 50 MB
// plus a pooled buffer grown to 64 MB, several VUs at once: 3.4 GB for 50 answers a second.
//
// The module wraps the VU's transport, which k6/http's own client and tracer sit on, instead of making
// requests itself: k6/http still sends every request and emits every built-in metric (http_reqs,
// http_req_duration, http_req_failed, data_received, with the request's tags), so what the harness
// reads of k6's output is unchanged. Only the body changes, as the node engine reads it
// (src/http/answer-memory.ts's refusedUnread, src/engines/load/record-result.ts):
//   - a Content-Length past the cap, on an answer that has a body: refused at its headers, unread
//     (the body is closed, so Go's transport drops the connection, as node destroys its socket);
//   - otherwise read up to cap+1 bytes; the byte past the cap ends the read there and closes the rest.
//
// Either way the answer carries the header PastCapHeader ("declared" or "read"), which a target cannot
// send (it is deleted from every answer first), and the script judges the answer garbage past the cap.
package answercap

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"

	"go.k6.io/k6/v2/js/modules"
)

// ModuleName is the import the harness's k6 entry uses.
const ModuleName = "k6/x/svc-harness"

// PastCapHeader marks an answer whose body passed the cap: "declared" (refused at its Content-Length,
// nothing read) or "read" (cap+1 bytes read, the rest never).
const PastCapHeader = "Svc-Harness-Past-Cap"

func init() {
	modules.Register(ModuleName, new(rootModule))
}

type rootModule struct{}

// NewModuleInstance is called once per VU.
func (*rootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	return &instance{vu: vu}
}

type instance struct {
	vu modules.VU
}

func (i *instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{
		"bound":         i.bound,
		"pastCapHeader": PastCapHeader,
	}}
}

// bound sets the cap on every later answer of this VU, wrapping its transport the first time. Only in
// the VU's own context (setup, an iteration, teardown): the init context has no transport.
func (i *instance) bound(maxBytes int64) error {
	state := i.vu.State()
	if state == nil {
		return errors.New("svc-harness: bound() is called in the VU context, not at init")
	}
	if maxBytes < 0 {
		return errors.New("svc-harness: bound() takes a cap of 0 bytes or more")
	}
	wrapped, ok := state.Transport.(*cappedTransport)
	if !ok {
		wrapped = &cappedTransport{inner: state.Transport}
		state.Transport = wrapped
	}
	wrapped.maxBytes.Store(maxBytes)
	return nil
}

// cappedTransport is the VU's transport with the cap on its answers' bodies.
type cappedTransport struct {
	inner    http.RoundTripper
	maxBytes atomic.Int64
}

// hasBody: a HEAD answer, a 1xx, a 204 and a 304 have none, whatever length they declare (RFC 9110 §6.4.1).
func hasBody(req *http.Request, status int) bool {
	return req.Method != http.MethodHead && status >= 200 && status != http.StatusNoContent &&
		status != http.StatusNotModified
}

func (t *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.inner.RoundTrip(req)
	if err != nil || resp == nil {
		return resp, err
	}
	resp.Header.Del(PastCapHeader)
	if !hasBody(req, resp.StatusCode) {
		return resp, nil
	}
	maxBytes := t.maxBytes.Load()
	if resp.ContentLength > maxBytes {
		// Closing an unread body makes Go's transport drop the connection rather than drain it.
		_ = resp.Body.Close()
		resp.Body = http.NoBody
		resp.Header.Set(PastCapHeader, "declared")
		return resp, nil
	}
	resp.Body = &cappedBody{inner: resp.Body, left: maxBytes + 1, header: resp.Header}
	return resp, nil
}

// cappedBody passes on at most cap+1 bytes: the one past the cap is how the script knows it was passed.
type cappedBody struct {
	inner  io.ReadCloser
	left   int64
	header http.Header
	ended  bool
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.ended {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.inner.Read(p)
	b.left -= int64(n)
	if b.left > 0 {
		return n, err
	}
	// Past the cap: k6 reads on until EOF, so the rest is never read; the header is set before k6
	// copies the answer's headers (after it has read the body).
	b.ended = true
	b.header.Set(PastCapHeader, "read")
	_ = b.inner.Close()
	return n, io.EOF
}

func (b *cappedBody) Close() error {
	if b.ended {
		return nil
	}
	b.ended = true
	return b.inner.Close()
}
