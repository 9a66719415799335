/*
 * libFuzzer harness: the Chakra ET reader (ReadChakraBuffer: plain and gzip
 * streams, legacy layout, attributes, dependencies, communicator groups).
 * Seeds: the Chakra traces of ../shared/reference (scripts/fuzz.sh).
 */

#include "fuzz-input.h"

#include "ns3/chakra-reader.h"

#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    astrafuzz::Quiet();
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    ns3::astra::ChakraReadOptions opts;
    // a gzip stream may decompress to 16 MiB here (the default limit, 2 GiB, is above
    // libFuzzer's memory limit; the bound itself is what is exercised)
    opts.maxFileBytes = uint64_t(16) << 20;
    astrafuzz::Expect([&] { ns3::astra::ReadChakraBuffer(bytes, "fuzz.et", 0, opts); });
    // the other reading rules: dangling dependencies dropped, durations as cycles
    opts.dropDanglingCtrlDeps = true;
    opts.dropDanglingDataDeps = true;
    opts.durationMicrosAsCycles = true;
    astrafuzz::Expect([&] { ns3::astra::ReadChakraBuffer(bytes, "fuzz.et", 1, opts); });
    return 0;
}
