/*
 * The collective library's protocol cost model (NCCL's Simple, LL and LL128
 * on rings): a launch latency per collective, a fixed latency per ring step
 * (NVLink or network), and the bytes a protocol puts on the wire per payload
 * byte. The constants are NCCL's own tuning model (src/graph/tuning.cc:
 * baseLatencies, hwLatencies of the Ring algorithm, and the bandwidth
 * factors busBw x 0.5 for LL and x 120/128 for LL128).
 */

#ifndef ASTRA_COLLECTIVE_PROTOCOL_H
#define ASTRA_COLLECTIVE_PROTOCOL_H

#include "system-params.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// The costs of one protocol (ns; the wire factor is bytes on the wire per payload byte).
struct ProtocolCosts
{
    double launchNs{0};     //!< once per collective (NCCL baseLatencies, Ring)
    double nvlinkStepNs{0}; //!< per ring step over NVLink (hwLatencies NVLINK, Ring)
    double netStepNs{0};    //!< per ring step over the network (hwLatencies NET, Ring)
    double wireFactor{1};   //!< LL: 2 (a flag per 4 bytes), LL128: 128/120, Simple: 1
};

/// \return the costs of \p p (all zero, factor 1, for CollProtocol::NONE)
const ProtocolCosts& GetProtocolCosts(CollProtocol p);

/// \return the configuration name ("none", "Simple", "LL", "LL128")
const char* CollProtocolName(CollProtocol p);

/// \return the protocols' configuration names
std::vector<std::string> CollProtocolNames();

} // namespace astra
} // namespace ns3

#endif /* ASTRA_COLLECTIVE_PROTOCOL_H */
