package origin

// Match reports whether the Origin header got is the allowed origin: a
// statement of T3 the fuzz targets hold the normalisation to. A missing or
// empty Origin, and "null", never match. The bridge itself admits by
// AllowedSite.
func Match(got, allowed string) bool {
	g := Normalize(got)
	return g != "" && g != "null" && g == Normalize(allowed)
}

// HostAllowed is loopbackHost's verdict alone, for the tests of the Host
// check.
func HostAllowed(host string, port int) bool {
	_, ok := loopbackHost(host, port)
	return ok
}
