package exporter

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/prometheus/exporter-toolkit/web"
	"go.yaml.in/yaml/v2"
)

// checkExposure refuses privileged endpoints that anyone on the network
// could use: Go profiles show the process's code paths and memory and
// fgprof costs CPU; the JVM profiles API attaches to the node's JVMs and
// pauses them about 100 times a second. Beyond loopback they need a web
// config that authenticates every request (basic auth or verified client
// certificates); TLS alone or an empty file does not.
func (c Config) checkExposure(routes []Route) error {
	var what []string
	if c.EnableProfiling {
		what = append(what, "--web.enable-profiling (/debug/pprof/)")
	}
	for _, r := range routes {
		if r.Privileged != "" && !containsPrefix(what, r.Privileged) {
			what = append(what, r.Privileged+" ("+routePath(r.Pattern)+")")
		}
	}
	if len(what) == 0 || c.AllowUnauthenticatedProfiling {
		return nil
	}
	var exposed string
	for _, a := range c.listenAddresses() {
		if !loopbackAddress(a) {
			exposed = a
			break
		}
	}
	if exposed == "" {
		return nil
	}
	file := *c.Web.WebConfigFile
	ok, why := webConfigAuthenticates(file)
	if ok {
		return nil
	}
	return fmt.Errorf("%s on %s, reachable beyond this host, needs a --web.config.file that authenticates every request "+
		"(basic_auth_users, or tls_server_config with client_auth_type: RequireAndVerifyClientCert): %s; "+
		"listen on a loopback address, or pass --profiling.allow-unauthenticated to serve them to anyone who can connect",
		strings.Join(what, " and "), exposed, why)
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix+" ") {
			return true
		}
	}
	return false
}

// routePath is a ServeMux pattern without its method.
func routePath(pattern string) string {
	if _, p, ok := strings.Cut(pattern, " "); ok {
		return p
	}
	return pattern
}

// webConfigAuthenticates reports whether the exporter-toolkit web config
// at file makes every request authenticate, and if not, why.
func webConfigAuthenticates(file string) (bool, string) {
	if file == "" {
		return false, "none is given"
	}
	if err := web.Validate(file); err != nil {
		return false, fmt.Sprintf("%s: %v", file, err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return false, err.Error()
	}
	var cfg web.Config
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		return false, fmt.Sprintf("%s: %v", file, err)
	}
	if len(cfg.Users) > 0 {
		return true, ""
	}
	if cfg.TLSConfig.ClientAuth == "RequireAndVerifyClientCert" && (cfg.TLSConfig.TLSCertPath != "" || cfg.TLSConfig.TLSCert != "") {
		return true, ""
	}
	return false, file + " has neither basic_auth_users nor client_auth_type: RequireAndVerifyClientCert"
}

func (c Config) listenAddresses() []string {
	if c.Web.WebSystemdSocket != nil && *c.Web.WebSystemdSocket {
		return []string{"the systemd socket"}
	}
	return *c.Web.WebListenAddresses
}

// loopbackAddress reports whether a listen address accepts only local
// clients: an empty host (":18090") listens on every interface.
func loopbackAddress(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHost reports whether a Host header names this machine's loopback
// interface: localhost, a name under .localhost, or a loopback IP.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// hostGuard answers 421 to requests on a loopback listener whose Host is
// neither a loopback name nor one of allowed: a web page whose domain the
// attacker re-points at 127.0.0.1 (DNS rebinding) would otherwise read
// and drive a loopback-only server from the victim's browser. The port is
// not checked, so port forwards (kubectl port-forward, ssh -L) still work.
func hostGuard(next http.Handler, allowed []string) http.Handler {
	ok := map[string]bool{}
	for _, h := range allowed {
		ok[strings.TrimSuffix(strings.ToLower(h), ".")] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !loopbackHost(host) && !ok[strings.TrimSuffix(strings.ToLower(host), ".")] {
			http.Error(w, fmt.Sprintf("Host %q is not this loopback server's name; add it with --web.allowed-hosts", r.Host),
				http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossOriginGuard refuses state-changing requests (POST, PUT, DELETE, …)
// a browser sends on behalf of another site (Sec-Fetch-Site, else Origin
// against Host); requests without those headers (curl, scripts) pass.
func crossOriginGuard(next http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "cross-origin "+r.Method+" refused", http.StatusForbidden)
	}))
	return p.Handler(next)
}
