/*
 * MemoryServer (memory-server.h).
 */

#include "memory-server.h"

#include "ns3/log.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraMemoryServer");
NS_OBJECT_ENSURE_REGISTERED(MemoryServer);

TypeId
MemoryServer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::MemoryServer")
                            .SetParent<Object>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<MemoryServer>();
    return tid;
}

MemoryServer::MemoryServer() = default;
MemoryServer::~MemoryServer() = default;

void
MemoryServer::DoDispose()
{
    for (const auto& qp : m_qps)
    {
        if (qp->GetConsumer() == this)
        {
            qp->SetConsumer(nullptr);
        }
        if (qp->GetResponder() == this)
        {
            qp->SetResponder(nullptr);
        }
    }
    m_qps.clear();
    m_writes.clear();
    m_stack = nullptr;
    m_device = nullptr;
    Object::DoDispose();
}

void
MemoryServer::Setup(Ptr<RdmaHostStack> stack, Ptr<MemoryDevice> device)
{
    if (!stack || !device)
    {
        throw std::invalid_argument("MemoryServer::Setup: needs a host stack and a device");
    }
    m_stack = stack;
    m_device = device;
}

void
MemoryServer::Serve(Ptr<RdmaQueuePair> qp)
{
    if (!m_stack)
    {
        throw std::logic_error("MemoryServer::Serve before Setup");
    }
    qp->SetConsumer(this);
    qp->SetResponder(this);
    m_qps.push_back(qp);
}

Ptr<MemoryDevice>
MemoryServer::GetDevice() const
{
    return m_device;
}

Ptr<RdmaHostStack>
MemoryServer::GetHostStack() const
{
    return m_stack;
}

uint64_t
MemoryServer::GetWriteCompletions() const
{
    return m_completions;
}

RdmaReadGate
MemoryServer::ReadRequested(RdmaQueuePair&, uint64_t bytes)
{
    const MemoryDevice::Grant g = m_device->Read(bytes);
    RdmaReadGate gate;
    gate.start = g.dataStart;
    gate.psPerByte = m_device->GetPsPerByte();
    return gate;
}

void
MemoryServer::WriteStarted(RdmaQueuePair& qp, uint64_t bytes)
{
    m_writes[qp.GetQpn()].push_back(m_device->WriteStart(bytes));
}

void
MemoryServer::RxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info)
{
    if (info.kind != RdmaMsgKind::WRITE)
    {
        return; // only WRITEs are served (a SEND to a memory node has no meaning here)
    }
    auto it = m_writes.find(qp.GetQpn());
    if (it == m_writes.end() || it->second.empty())
    {
        NS_LOG_WARN("memory server: WRITE completion without a start on QP " << qp.GetQpn());
        return;
    }
    const MemoryDevice::Grant g = it->second.front();
    it->second.pop_front();
    const Time done = m_device->WriteDone(g);
    Simulator::Schedule(done - Simulator::Now(),
                        &MemoryServer::Complete,
                        Ptr<MemoryServer>(this),
                        qp.GetQpn(),
                        info.tag);
}

void
MemoryServer::Complete(uint32_t qpn, uint64_t tag)
{
    if (!m_stack)
    {
        return; // disposed
    }
    Ptr<RdmaQueuePair> qp = m_stack->GetQp(qpn);
    if (qp)
    {
        ++m_completions;
        m_stack->PostSend(qp, 0, tag);
    }
}

} // namespace astra
} // namespace ns3
