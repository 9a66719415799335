/*
 * The unit of traffic between the system layer and a network backend: one
 * message with its endpoints, size, tag, dimension and traffic class.
 */

#ifndef ASTRA_NET_MESSAGE_H
#define ASTRA_NET_MESSAGE_H

#include <cstdint>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Traffic classes a message may belong to; backends map them to priorities.
 */
enum class TrafficClass : uint8_t
{
    COLLECTIVE = 0, //!< collective algorithm steps
    POINT_TO_POINT, //!< workload SEND/RECV (e.g. pipeline parallelism)
    MEMORY,         //!< remote/disaggregated memory traffic
    CONTROL,        //!< small control messages (barriers, rendezvous)
    COUNT
};

/**
 * \ingroup astra-sim
 * One message handed to a network backend.
 */
struct NetMessage
{
    uint32_t src{0};                               //!< source NPU (or memory node) id
    uint32_t dst{0};                               //!< destination id
    uint64_t bytes{0};                             //!< payload bytes (64-bit)
    uint64_t tag{0};                               //!< opaque tag, kept end to end
    int32_t dim{-1};                               //!< network dimension to use; -1 = any (routed)
    TrafficClass tclass{TrafficClass::COLLECTIVE}; //!< traffic class
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_NET_MESSAGE_H */
