package releaseid

// SAN is the exact certificate identity of a release signed on tag (e.g.
// "v1.2.3"): what cosign's --certificate-identity takes for one release.
func SAN(tag string) string {
	return "https://" + Repository + "/" + Workflow + "@refs/tags/" + tag
}
