package mcp

import (
	"encoding/json"
	"testing"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		texts   []string
		image   string
		isError bool
	}{
		{"say leads and id goes", `{"id":3,"ok":true,"say":"Done.","n":1}`,
			[]string{"Done.\n\n" + `{"ok":true,"say":"Done.","n":1}`}, "", false},
		{"no say", `{"id":3,"ok":true}`, []string{`{"ok":true}`}, "", false},
		{"ok false is isError", `{"id":1,"ok":false,"message":"No such stitch."}`,
			[]string{`{"ok":false,"message":"No such stitch."}`}, "", true},
		{"dataUrl becomes an image and leaves the text", `{"id":1,"ok":true,"dataUrl":"data:image/png;base64,iVBO"}`,
			[]string{`{"ok":true}`}, "image/png iVBO", false},
		{"malformed dataUrl stays text", `{"ok":true,"dataUrl":"not a data url"}`,
			[]string{`{"ok":true,"dataUrl":"not a data url"}`}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Convert([]byte(tt.env))
			var texts []string
			image := ""
			for _, c := range r.Content {
				switch c.Type {
				case "text":
					texts = append(texts, c.Text)
				case "image":
					image = c.MIMEType + " " + c.Data
				}
			}
			gt, _ := json.Marshal(texts)
			wt, _ := json.Marshal(tt.texts)
			if string(gt) != string(wt) || image != tt.image || r.IsError != tt.isError {
				t.Fatalf("Convert(%s) = texts %s image %q isError %v; want %s %q %v", tt.env, gt, image, r.IsError, wt, tt.image, tt.isError)
			}
		})
	}
}
