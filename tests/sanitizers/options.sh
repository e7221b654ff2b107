# Sanitizer run-time options for the sanitizer build (sourced by scripts/sanitize.sh, which .ci/run
# calls). Every option that departs from the default says why.
S=${S:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
# halt_on_error / abort_on_error: the first report ends the process, so a finding fails its test.
# detect_stack_use_after_return=0: SystemC runs every SC_THREAD on a coroutine stack of its own
#   (QuickThreads); ASan cannot follow those stack switches (it "ignores __asan_handle_no_return"
#   for them), so fake-stack frames and scope poisoning left behind by a switch are reported
#   later as stack errors that are not Photon memory errors.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=0:suppressions=$S/asan.supp"
# use_stacks=0: LeakSanitizer scans each thread's stack from its stack pointer to the stack top
#   it recorded for the thread; after SystemC's coroutine switches that range is not one mapping,
#   and the scan runs into unmapped memory (the LSan tracer dies: "Tracer caught signal 11"). The
#   heap, globals and thread-local storage are still scanned; at exit the main stack holds no
#   live allocations.
export LSAN_OPTIONS="suppressions=$S/lsan.supp:print_suppressions=0:use_stacks=0"
# print_stacktrace: a report names the code path, not only the line.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$S/ubsan.supp"
