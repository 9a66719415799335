#include "in-switch-network.h"

#include <algorithm>

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(InSwitchNetwork);

TypeId
InSwitchNetwork::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::InSwitchNetwork").SetParent<Object>().SetGroupName("AstraSim");
    return tid;
}

InSwitchNetwork::~InSwitchNetwork() = default;

const char*
InSwitchOpName(InSwitchOpKind k)
{
    switch (k)
    {
    case InSwitchOpKind::ALL_REDUCE:
        return "ALL_REDUCE";
    case InSwitchOpKind::REDUCE_SCATTER:
        return "REDUCE_SCATTER";
    case InSwitchOpKind::ALL_GATHER:
        return "ALL_GATHER";
    case InSwitchOpKind::REDUCE:
        return "REDUCE";
    case InSwitchOpKind::BROADCAST:
        return "BROADCAST";
    }
    return "?";
}

InSwitchVolume
InSwitchBytes(InSwitchOpKind kind, uint32_t n, uint32_t rank, uint32_t root, uint64_t bytes)
{
    InSwitchVolume v;
    switch (kind)
    {
    case InSwitchOpKind::ALL_REDUCE:
        v.up = bytes;
        v.down = bytes;
        break;
    case InSwitchOpKind::REDUCE_SCATTER:
        v.up = bytes;
        v.down = std::max<uint64_t>(1, bytes / std::max<uint32_t>(1, n));
        break;
    case InSwitchOpKind::ALL_GATHER:
        v.up = bytes;
        v.down = bytes * (n > 0 ? n - 1 : 0);
        break;
    case InSwitchOpKind::REDUCE:
        v.up = bytes;
        v.down = rank == root ? bytes : 0;
        break;
    case InSwitchOpKind::BROADCAST:
        v.up = rank == root ? bytes : 0;
        v.down = rank == root ? 0 : bytes;
        break;
    }
    return v;
}

} // namespace astra
} // namespace ns3
