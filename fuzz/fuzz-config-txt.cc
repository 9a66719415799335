/*
 * libFuzzer harness: the RoCE configuration reader (an HPCC / SimAI config.txt,
 * or a JSON / YAML attribute file: RoceConfigReader::Apply decides as for a
 * user's file) and the HPCC-format topology file (ReadHpccTopology). The first
 * byte chooses: even the configuration reader, odd the topology reader.
 * Attribute defaults are reset after each input. Seeds: fuzz/corpus/config-txt.
 */

#include "fuzz-input.h"

#include "ns3/config.h"
#include "ns3/hpcc-topology-reader.h"
#include "ns3/roce-config-reader.h"

#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace ns3::astra;
    astrafuzz::Quiet();
    if (size < 1)
    {
        return 0;
    }
    if (data[0] % 2 == 0)
    {
        const std::string p = astrafuzz::WriteInput(data + 1, size - 1, "config.txt");
        astrafuzz::Expect([&] { RoceConfigReader::Apply(p); });
        ns3::Config::Reset();
    }
    else
    {
        const std::string p = astrafuzz::WriteInput(data + 1, size - 1, "topology.txt");
        astrafuzz::Expect([&] { ReadHpccTopology(p); });
    }
    return 0;
}
