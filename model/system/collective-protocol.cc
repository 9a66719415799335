#include "collective-protocol.h"

namespace ns3
{
namespace astra
{

const ProtocolCosts&
GetProtocolCosts(CollProtocol p)
{
    // NCCL tuning.cc (Ring): baseLatencies {LL 6.6, LL128 14.0, Simple 8.4} us; hwLatencies
    // NVLINK {0.6, 1.9, 3.4} us and NET {2.7, 4.0, 14.0} us per step; busBw x .5 (LL) and
    // x 0.92 = 120/128 (LL128)
    static const ProtocolCosts none{0, 0, 0, 1};
    static const ProtocolCosts simple{8400, 3400, 14000, 1};
    static const ProtocolCosts ll{6600, 600, 2700, 2};
    static const ProtocolCosts ll128{14000, 1900, 4000, 128.0 / 120.0};
    switch (p)
    {
    case CollProtocol::SIMPLE:
        return simple;
    case CollProtocol::LL:
        return ll;
    case CollProtocol::LL128:
        return ll128;
    default:
        return none;
    }
}

const char*
CollProtocolName(CollProtocol p)
{
    switch (p)
    {
    case CollProtocol::SIMPLE:
        return "Simple";
    case CollProtocol::LL:
        return "LL";
    case CollProtocol::LL128:
        return "LL128";
    default:
        return "none";
    }
}

std::vector<std::string>
CollProtocolNames()
{
    return {"none", "Simple", "LL", "LL128"};
}

} // namespace astra
} // namespace ns3
