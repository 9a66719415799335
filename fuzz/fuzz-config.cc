/*
 * libFuzzer harness: the JSON / YAML configuration parsers. The first byte of
 * an input chooses the parser, the rest is the file:
 *   0 system JSON (ParseSystemConfigText, then ToSystemParams)
 *   1 network YAML / JSON (Topology::FromFile: parsed and built)
 *   2 remote-memory JSON (ParseRemoteMemoryConfig)
 *   3 communicator-group JSON (ParseCommGroupsText, unchecked and for 16 NPUs)
 *   4 logical-topology JSON (ParseLogicalTopology)
 * Seeds: the reference's configuration files, each prefixed by its byte (scripts/fuzz.sh).
 */

#include "fuzz-input.h"

#include "ns3/astra-config.h"
#include "ns3/topology.h"

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
    const uint8_t which = data[0] % 5;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    switch (which)
    {
    case 0:
        astrafuzz::Expect([&] { ToSystemParams(ParseSystemConfigText(text, "system.json")); });
        break;
    case 1: {
        const std::string p = astrafuzz::WriteInput(data + 1, size - 1, "network.yml");
        astrafuzz::Expect([&] { Topology::FromFile(p); });
        break;
    }
    case 2: {
        const std::string p = astrafuzz::WriteInput(data + 1, size - 1, "memory.json");
        astrafuzz::Expect([&] { ParseRemoteMemoryConfig(p); });
        break;
    }
    case 3:
        astrafuzz::Expect([&] { CommGroupsByName(ParseCommGroupsText(text, "groups.json")); });
        astrafuzz::Expect([&] { ParseCommGroupsText(text, "groups.json", 16); });
        break;
    default: {
        const std::string p = astrafuzz::WriteInput(data + 1, size - 1, "logical.json");
        astrafuzz::Expect([&] { ParseLogicalTopology(p); });
        break;
    }
    }
    return 0;
}
