// libsystemc's own main() calls sc_main; Photon's executables have their own main() and drive the
// kernel through soc/platform.h, so this is never called, but the shared library needs the symbol.
// platform/CMakeLists.txt makes every executable that links the framework pull it in.
extern "C" int sc_main(int, char**) { return 0; }
