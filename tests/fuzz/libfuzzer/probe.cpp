// Compiled at configure time: are clang's libFuzzer, ASan and UBSan runtimes installed?
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *, std::size_t) { return 0; }
