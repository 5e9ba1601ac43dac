module github.com/stitchslop/stitchslop-bridge

go 1.26.8

require (
	github.com/adrg/xdg v0.5.3 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/sigstore/sigstore-go v1.3.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
