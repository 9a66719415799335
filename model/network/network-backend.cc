#include "network-backend.h"

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(NetworkBackend);

TypeId
NetworkBackend::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::NetworkBackend").SetParent<Object>().SetGroupName("AstraSim");
    return tid;
}

NetworkBackend::~NetworkBackend() = default;

} // namespace astra
} // namespace ns3
