package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// hostEntry is one parsed Egress.Hosts entry: a host pattern ("*", a
// "*.domain", a name or an IP address) and a port, 0 for "443 and 80".
type hostEntry struct {
	host string     // lower-case name, "*" or "*.domain"; "" for an address
	ip   netip.Addr // the address of an IP entry
	port int
}

// parseEntry reads "host", "host:port", "*.domain[:port]", "*[:port]",
// "10.0.0.5", "[fd00::1]:8080" or "fd00::1".
func parseEntry(s string) (hostEntry, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return hostEntry{}, false
	}
	if ip, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return hostEntry{ip: ip.Unmap()}, true
	}
	host, portStr, err := net.SplitHostPort(s)
	if err != nil {
		return hostEntry{host: s}, true
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 {
		return hostEntry{}, false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return hostEntry{ip: ip.Unmap(), port: port}, true
	}
	return hostEntry{host: host, port: port}, true
}

// ports reports whether the entry allows port: its own, or 443 and 80 for
// an entry without one.
func (h hostEntry) ports(port int) bool {
	if h.port == 0 {
		return port == 443 || port == 80
	}
	return h.port == port
}

// names reports whether the entry's host pattern covers host (a name or
// an address literal).
func (h hostEntry) names(host string) bool {
	if h.ip.IsValid() {
		ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
		return err == nil && ip.Unmap() == h.ip
	}
	switch {
	case h.host == "*":
		return true
	case strings.HasPrefix(h.host, "*."):
		return strings.HasSuffix(host, h.host[1:])
	}
	return h.host == host
}

// covers reports whether ceiling entry c covers repository entry r: its
// host pattern covers r's and each port r allows.
func (c hostEntry) covers(r hostEntry) bool {
	var hostOK bool
	switch {
	case c.ip.IsValid() || r.ip.IsValid():
		hostOK = c.ip.IsValid() && c.ip == r.ip
	case c.host == "*":
		hostOK = true
	case strings.HasPrefix(c.host, "*."):
		hostOK = strings.HasSuffix(strings.TrimPrefix(r.host, "*"), c.host[1:])
	default:
		hostOK = c.host == r.host
	}
	if !hostOK {
		return false
	}
	if r.port == 0 {
		return c.port == 0
	}
	return c.ports(r.port)
}

// Allows reports whether the allowlist lets a command reach host at port
// (the name's addresses are still checked on each request); false for a nil
// or empty Egress.
func (e *Egress) Allows(host string, port int) bool {
	return e.allows() && e.egressCheck(host, port) == ""
}

// egressCheck says why a host and port are refused, or "" when an entry
// allows them.
func (e *Egress) egressCheck(host string, port int) string {
	host = strings.ToLower(host)
	named := false
	for _, s := range e.Hosts {
		h, ok := parseEntry(s)
		if !ok || !h.names(host) {
			continue
		}
		named = true
		if h.ports(port) {
			return ""
		}
	}
	if named {
		return fmt.Sprintf("port %d of %s is not allowed (an entry without a port allows 443 and 80 only; list %s:%d to allow it)", port, host, host, port)
	}
	return fmt.Sprintf("host %s is not on the allowlist (the server's ISSUESMITH_EGRESS_HOSTS and the repository's egress.hosts must both name it)", net.JoinHostPort(host, strconv.Itoa(port)))
}

// listsAddr reports whether an entry names ip itself with port.
func (e *Egress) listsAddr(ip netip.Addr, port int) bool {
	for _, s := range e.Hosts {
		if h, ok := parseEntry(s); ok && h.ip.IsValid() && h.ip == ip.Unmap() && h.ports(port) {
			return true
		}
	}
	return false
}

// internal are address ranges a proxy for the public internet must not
// reach (besides loopback, RFC 1918 and ULA, link-local and multicast,
// which netip tells): "this network", carrier-grade NAT, IETF protocol
// assignments, benchmarking, reserved and broadcast, and the
// documentation ranges.
var internal = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"), netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("64:ff9b:1::/48"),
}

// addrKind names why ip is not a public address ("" when it is): the
// cloud metadata service (169.254.169.254, AWS's fd00:ec2::254) first,
// then loopback, private, link-local, multicast, unspecified, reserved.
func addrKind(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip == netip.MustParseAddr("169.254.169.254") || ip == netip.MustParseAddr("fd00:ec2::254"):
		return "the cloud metadata address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip.IsMulticast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	case ip.IsUnspecified():
		return "the unspecified address"
	}
	for _, p := range internal {
		if p.Contains(ip) {
			return "a reserved address"
		}
	}
	return ""
}

// refusal is a dial the rules refused (answered 403, not 502).
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

// resolve is the addresses of host: the address itself, or the names'
// resolution (Egress.Resolve in tests).
func (e *Egress) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{ip.Unmap()}, nil
	}
	if e.Resolve != nil {
		return e.Resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// dialChecked resolves hostport's name once, keeps the addresses that are
// public or listed exactly, and dials those addresses — never the name
// again, so a second answer (DNS rebinding) cannot pass the check.
func (e *Egress) dialChecked(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	port, _ := strconv.Atoi(portStr)
	if why := e.egressCheck(host, port); why != "" {
		return nil, &refusal{why}
	}
	addrs, err := e.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	var ok []netip.Addr
	var why string
	for _, a := range addrs {
		if kind := addrKind(a); kind != "" && !e.listsAddr(a, port) {
			why = fmt.Sprintf("%s resolves to %s, %s (list that exact address as a host entry to allow it)", host, a.Unmap(), kind)
			continue
		}
		ok = append(ok, a.Unmap())
	}
	if len(ok) == 0 {
		if why == "" {
			why = host + " resolves to no address"
		}
		return nil, &refusal{why}
	}
	var lastErr error
	for _, a := range slices.Compact(ok) {
		addr := net.JoinHostPort(a.String(), portStr)
		var c net.Conn
		if e.Dial != nil {
			c, lastErr = e.Dial(ctx, network, addr)
		} else {
			var d net.Dialer
			c, lastErr = d.DialContext(ctx, network, addr)
		}
		if lastErr == nil {
			return c, nil
		}
	}
	return nil, lastErr
}
