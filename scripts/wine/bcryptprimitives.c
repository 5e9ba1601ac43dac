/*
 * bcryptprimitives.dll for Wine 8, which has none: exports ProcessPrng, the
 * one function the Go runtime (1.24 and later) takes from it at start, on
 * top of RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 *
 * Built by scripts/wine/build.sh with Debian's x86_64-w64-mingw32-gcc and
 * copied into the Wine prefix's system32 by scripts/wine/setup.sh. It is a
 * test fixture for running the Windows build under Wine in CI, never
 * shipped. Windows' ProcessPrng never fails and always returns TRUE; this
 * one returns FALSE if RtlGenRandom fails, and the Go runtime then aborts,
 * which is the loud failure a test run wants.
 */
#include <windows.h>

/* RtlGenRandom: advapi32.dll's SystemFunction036. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* RtlGenRandom takes a ULONG length; ProcessPrng a SIZE_T. */
#define CHUNK 0x40000000UL

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > CHUNK ? CHUNK : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
	(void)inst;
	(void)reason;
	(void)reserved;
	return TRUE;
}
