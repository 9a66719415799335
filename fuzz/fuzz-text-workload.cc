/*
 * libFuzzer harness: the ASTRA-sim 1.0 text-workload parser and the graphs
 * built from it (ReadTextWorkload for 8 NPUs, then 2 passes in packages of 2).
 * Seeds: the text workloads of ../shared/reference (scripts/fuzz.sh).
 */

#include "fuzz-input.h"

#include "ns3/text-workload.h"

#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace ns3::astra;
    astrafuzz::Quiet();
    const std::string p = astrafuzz::WriteInput(data, size, "workload.txt");
    astrafuzz::Expect([&] { ReadTextWorkload(p, 8); });
    TextWorkloadOptions o;
    o.numPasses = 2;
    o.packageSize = 2;
    o.emitWeightUpdate = true;
    astrafuzz::Expect([&] { ReadTextWorkload(p, 8, o); });
    return 0;
}
