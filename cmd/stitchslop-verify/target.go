package main

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"errors"
	"fmt"
	"io"
)

// binaryTarget reads the GOOS and GOARCH an executable was built for from
// its header (ELF, Mach-O or PE), not from its name or what it says of
// itself. It knows the machines the release builds (.goreleaser.yaml) and
// a few more; anything else is an error saying what the header holds.
func binaryTarget(r io.ReaderAt) (goos, goarch string, err error) {
	if f, err := elf.NewFile(r); err == nil {
		defer f.Close()
		switch f.OSABI {
		case elf.ELFOSABI_NONE, elf.ELFOSABI_LINUX:
			goos = "linux"
		case elf.ELFOSABI_FREEBSD:
			goos = "freebsd"
		case elf.ELFOSABI_NETBSD:
			goos = "netbsd"
		case elf.ELFOSABI_OPENBSD:
			goos = "openbsd"
		default:
			return "", "", fmt.Errorf("an ELF header for OS ABI %v", f.OSABI)
		}
		switch f.Machine {
		case elf.EM_X86_64:
			goarch = "amd64"
		case elf.EM_AARCH64:
			goarch = "arm64"
		case elf.EM_386:
			goarch = "386"
		case elf.EM_ARM:
			goarch = "arm"
		default:
			return "", "", fmt.Errorf("an ELF header for machine %v", f.Machine)
		}
		return goos, goarch, nil
	}
	if f, err := macho.NewFile(r); err == nil {
		defer f.Close()
		switch f.Cpu {
		case macho.CpuAmd64:
			return "darwin", "amd64", nil
		case macho.CpuArm64:
			return "darwin", "arm64", nil
		default:
			return "", "", fmt.Errorf("a Mach-O header for CPU %v", f.Cpu)
		}
	}
	if f, err := pe.NewFile(r); err == nil {
		defer f.Close()
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows", "amd64", nil
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows", "arm64", nil
		case pe.IMAGE_FILE_MACHINE_I386:
			return "windows", "386", nil
		default:
			return "", "", fmt.Errorf("a PE header for machine %#x", f.Machine)
		}
	}
	return "", "", errors.New("no ELF, Mach-O or PE executable header")
}
