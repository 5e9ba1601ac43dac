package setup

import "golang.org/x/sys/windows"

// underWine reports whether this Windows is Wine: its ntdll exports
// wine_get_version, which no Windows ntdll does.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
