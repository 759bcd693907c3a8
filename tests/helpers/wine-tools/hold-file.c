/*
 * Test-only (the Wine tests): another Windows program holding a file open, so zipfs.exe
 * meets Windows's sharing rules as it would beside Office or a zip viewer.
 *   hold-file.exe PATH none|read RELEASE_FILE
 * "none" opens PATH for reading and writing with no sharing (as Office holds a document: nobody
 * else may read, write, rename or delete it); "read" opens it for reading and lets others only
 * read (as a viewer does: a rename or delete over it fails). Prints "held" once the handle is
 * open, keeps it until RELEASE_FILE exists, then closes it and exits 0. A guard of 120 s ends
 * it if the test died before releasing it.
 */
#include <windows.h>
#include <stdio.h>

int wmain(int argc, wchar_t **argv) {
  if (argc != 4) {
    fputs("usage: hold-file.exe PATH none|read RELEASE_FILE\n", stderr);
    return 2;
  }
  BOOL readOnly = wcscmp(argv[2], L"read") == 0;
  HANDLE file = CreateFileW(argv[1], readOnly ? GENERIC_READ : GENERIC_READ | GENERIC_WRITE, readOnly ? FILE_SHARE_READ : 0, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  if (file == INVALID_HANDLE_VALUE) {
    fprintf(stderr, "hold-file: cannot open the file (Windows error %lu)\n", GetLastError());
    return 1;
  }
  puts("held");
  fflush(stdout);
  for (int waited = 0; waited < 120000 && GetFileAttributesW(argv[3]) == INVALID_FILE_ATTRIBUTES; waited += 20) Sleep(20);
  CloseHandle(file);
  return 0;
}
