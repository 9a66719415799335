#include "rdma-host-directory.h"

#include "rdma-host-stack.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/node.h"

#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaHostDirectory);

TypeId
RdmaHostDirectory::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaHostDirectory")
                            .SetParent<Object>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<RdmaHostDirectory>();
    return tid;
}

RdmaHostDirectory::RdmaHostDirectory() = default;

RdmaHostDirectory::~RdmaHostDirectory() = default;

void
RdmaHostDirectory::DoDispose()
{
    m_stacks.clear();
    m_remote.clear();
    Object::DoDispose();
}

void
RdmaHostDirectory::Add(RdmaHostStack* stack)
{
    const uint32_t idx = stack->GetHostIndex();
    if (m_stacks.size() <= idx)
    {
        m_stacks.resize(size_t(idx) + 1, nullptr);
    }
    if (m_stacks[idx] && m_stacks[idx] != stack)
    {
        throw astra::InputError("RdmaHostDirectory: host index " + std::to_string(idx) +
                                " is already taken by another host stack");
    }
    m_stacks[idx] = stack;
}

void
RdmaHostDirectory::Remove(RdmaHostStack* stack)
{
    const uint32_t idx = stack->GetHostIndex();
    if (idx < m_stacks.size() && m_stacks[idx] == stack)
    {
        m_stacks[idx] = nullptr;
    }
}

Ptr<RdmaHostStack>
RdmaHostDirectory::Find(uint32_t hostIndex) const
{
    return hostIndex < m_stacks.size() ? Ptr<RdmaHostStack>(m_stacks[hostIndex]) : nullptr;
}

uint32_t
RdmaHostDirectory::GetSize() const
{
    return uint32_t(m_stacks.size());
}

Ptr<RdmaHostStack>
RdmaHostDirectory::FindByIpv4(uint32_t ip) const
{
    for (RdmaHostStack* s : m_stacks)
    {
        if (s && s->GetIpv4().Get() == ip)
        {
            return s;
        }
    }
    return nullptr;
}

void
RdmaHostDirectory::SetLocalSystem(uint32_t localSystemId)
{
    m_distributed = true;
    m_localSystem = localSystemId;
}

bool
RdmaHostDirectory::IsDistributed() const
{
    return m_distributed;
}

bool
RdmaHostDirectory::IsLocal(const RdmaHostStack* stack) const
{
    if (!m_distributed || !stack)
    {
        return true;
    }
    Ptr<Node> n = stack->GetObject<Node>();
    return !n || n->GetSystemId() == m_localSystem;
}

void
RdmaHostDirectory::AddRemote(uint32_t hostIndex, uint32_t ip, uint32_t initialPsn)
{
    if (m_remote.size() <= hostIndex)
    {
        m_remote.resize(size_t(hostIndex) + 1);
    }
    m_remote[hostIndex] = RemoteHost{ip, initialPsn};
}

bool
RdmaHostDirectory::FindRemote(uint32_t hostIndex, uint32_t& ip, uint32_t& initialPsn) const
{
    if (hostIndex >= m_remote.size() || m_remote[hostIndex].ip == 0)
    {
        return false;
    }
    ip = m_remote[hostIndex].ip;
    initialPsn = m_remote[hostIndex].initialPsn;
    return true;
}

bool
RdmaHostDirectory::FindRemoteByIpv4(uint32_t ip, uint32_t& hostIndex, uint32_t& initialPsn) const
{
    for (uint32_t i = 0; i < m_remote.size(); ++i)
    {
        if (m_remote[i].ip != 0 && m_remote[i].ip == ip)
        {
            hostIndex = i;
            initialPsn = m_remote[i].initialPsn;
            return true;
        }
    }
    return false;
}

} // namespace ns3
