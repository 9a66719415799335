/*
 * RoceMemoryTransport and FlowMemoryTransport (memory-transport.h).
 */

#include "memory-transport.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/event-batcher.h"
#include "ns3/log.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-meta.h"
#include "ns3/simulator.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraMemoryTransport");
NS_OBJECT_ENSURE_REGISTERED(RoceMemoryTransport);
NS_OBJECT_ENSURE_REGISTERED(FlowMemoryTransport);

// ------------------------------------------------------------ RoceMemoryTransport

TypeId
RoceMemoryTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::RoceMemoryTransport")
                            .SetParent<MemoryTransport>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<RoceMemoryTransport>();
    return tid;
}

RoceMemoryTransport::RoceMemoryTransport() = default;
RoceMemoryTransport::~RoceMemoryTransport() = default;

void
RoceMemoryTransport::DoDispose()
{
    RdmaQpConsumer* self = this;
    for (auto& kv : m_qps)
    {
        if (kv.second->GetConsumer() == self)
        {
            kv.second->SetConsumer(nullptr);
        }
    }
    m_qps.clear();
    m_stacks.clear();
    m_servers.clear();
    m_links.clear();
    MemoryTransport::DoDispose();
}

void
RoceMemoryTransport::Setup(const std::vector<Ptr<RdmaHostStack>>& stacks,
                           const std::vector<Ptr<MemoryServer>>& servers,
                           uint8_t priority)
{
    if (priority > 7)
    {
        throw InputError("RoceMemoryTransport: priority " + std::to_string(priority) +
                         " is not 0..7");
    }
    m_stacks = stacks;
    m_servers = servers;
    m_priority = priority;
    m_links.assign(stacks.size(), Link{});
}

void
RoceMemoryTransport::SetLinkDevices(uint32_t mem,
                                    Ptr<RdmaNetDevice> atMemory,
                                    Ptr<RdmaNetDevice> atPeer)
{
    if (mem >= m_links.size())
    {
        m_links.resize(mem + 1);
    }
    m_links[mem].atMemory = atMemory;
    m_links[mem].atPeer = atPeer;
}

Ptr<RdmaQueuePair>
RoceMemoryTransport::GetQp(uint32_t npu, uint32_t mem) const
{
    auto it = m_qps.find((uint64_t(npu) << 32) | mem);
    return it == m_qps.end() ? nullptr : it->second;
}

uint32_t
RoceMemoryTransport::GetQpCount() const
{
    return static_cast<uint32_t>(m_qps.size());
}

uint8_t
RoceMemoryTransport::GetPriority() const
{
    return m_priority;
}

void
RoceMemoryTransport::Post(uint32_t npu, uint32_t mem, uint64_t bytes, bool write, uint64_t cookie)
{
    const uint64_t key = (uint64_t(npu) << 32) | mem;
    auto it = m_qps.find(key);
    if (it == m_qps.end())
    {
        if (npu >= m_stacks.size() || mem >= m_stacks.size() || !m_stacks[npu] || !m_stacks[mem] ||
            mem >= m_servers.size() || !m_servers[mem])
        {
            throw std::runtime_error("fabric memory: no host stack or memory server for NPU " +
                                     std::to_string(npu) + " -> memory node " +
                                     std::to_string(mem));
        }
        Ptr<RdmaQueuePair> qp =
            m_stacks[npu]->GetOrCreateQp(m_stacks[mem]->GetHostIndex(), m_priority, 0, this);
        Ptr<RdmaQueuePair> peer = m_stacks[mem]->GetQp(qp->GetPeerQpn());
        m_servers[mem]->Serve(peer);
        it = m_qps.emplace(key, qp).first;
    }
    if (write)
    {
        m_stacks[npu]->PostWrite(it->second, bytes, cookie);
    }
    else
    {
        m_stacks[npu]->PostRead(it->second, bytes, cookie);
    }
}

void
RoceMemoryTransport::ReadComplete(RdmaQueuePair&, const RdmaMessageInfo& info)
{
    if (m_model)
    {
        m_model->MessageDone(info.tag);
    }
}

void
RoceMemoryTransport::RxComplete(RdmaQueuePair&, const RdmaMessageInfo& info)
{
    // the memory server's write completion (a zero-length SEND with the WRITE's tag)
    if (m_model && info.kind == RdmaMsgKind::SEND)
    {
        m_model->MessageDone(info.tag);
    }
}

std::string
RoceMemoryTransport::GetName() const
{
    return "roce";
}

double
RoceMemoryTransport::SampleLinkUtilisation(uint32_t mem)
{
    if (mem >= m_links.size() || !m_links[mem].atMemory)
    {
        return 0;
    }
    Link& l = m_links[mem];
    const auto wire = [](const Ptr<RdmaNetDevice>& d) {
        return double(d->GetTxBytes()) + double(d->GetTxFrames()) * kEthernetWireOverhead;
    };
    const double m = wire(l.atMemory);
    const double p = wire(l.atPeer);
    const Time now = Simulator::Now();
    const double dt = (now - l.lastTime).GetSeconds();
    const double bps = double(l.atMemory->GetDataRate().GetBitRate());
    double u = 0;
    if (dt > 0 && bps > 0)
    {
        u = std::max(m - l.lastMem, p - l.lastPeer) * 8.0 / (bps * dt);
    }
    l.lastMem = m;
    l.lastPeer = p;
    l.lastTime = now;
    return std::min(1.0, u);
}

double
RoceMemoryTransport::GetLinkBytes(uint32_t mem) const
{
    if (mem >= m_links.size() || !m_links[mem].atMemory)
    {
        return 0;
    }
    const Link& l = m_links[mem];
    const auto wire = [](const Ptr<RdmaNetDevice>& d) {
        return double(d->GetTxBytes()) + double(d->GetTxFrames()) * kEthernetWireOverhead;
    };
    return std::max(wire(l.atMemory), wire(l.atPeer));
}

uint64_t
RoceMemoryTransport::GetProgressCounter() const
{
    uint64_t n = 0;
    for (const auto& kv : m_qps)
    {
        n += kv.second->GetSndUna();
    }
    return n;
}

Ptr<MemoryDevice>
RoceMemoryTransport::GetDevice(uint32_t mem) const
{
    return mem < m_servers.size() && m_servers[mem] ? m_servers[mem]->GetDevice() : nullptr;
}

// ------------------------------------------------------------ FlowMemoryTransport

TypeId
FlowMemoryTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::FlowMemoryTransport")
                            .SetParent<MemoryTransport>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<FlowMemoryTransport>();
    return tid;
}

FlowMemoryTransport::FlowMemoryTransport() = default;
FlowMemoryTransport::~FlowMemoryTransport() = default;

void
FlowMemoryTransport::DoDispose()
{
    m_backend = nullptr;
    m_devices.clear();
    m_ops.clear();
    m_topo.reset();
    MemoryTransport::DoDispose();
}

void
FlowMemoryTransport::Setup(Ptr<FlowBackend> backend, const std::vector<Ptr<MemoryDevice>>& devices)
{
    if (!backend || !backend->GetTopology())
    {
        throw std::invalid_argument("FlowMemoryTransport::Setup: needs a flow backend with a "
                                    "topology");
    }
    m_backend = backend;
    m_topo = backend->GetTopology();
    const uint32_t nodes = m_topo->GetNodeCount();
    m_devices = devices;
    m_devices.resize(nodes);
    m_resource.assign(nodes, UINT32_MAX);
    m_link.assign(nodes, UINT32_MAX);
    m_bytesIn.assign(nodes, 0);
    m_bytesOut.assign(nodes, 0);
    for (uint32_t mem : m_topo->GetMemoryNodes())
    {
        if (!m_devices[mem])
        {
            throw std::invalid_argument("FlowMemoryTransport::Setup: memory node " +
                                        std::to_string(mem) + " has no device");
        }
        // GB/s with GB = 1e9 bytes is bytes per ns
        m_resource[mem] = m_backend->AddSharedResource(m_devices[mem]->GetBandwidthGBps());
        if (!m_topo->GetNodeLinks(mem).empty())
        {
            m_link[mem] = m_topo->GetNodeLinks(mem).front();
        }
    }
}

Time
FlowMemoryTransport::Latency(uint32_t a, uint32_t b)
{
    const uint64_t key = (uint64_t(a) << 32) | b;
    auto it = m_latency.find(key);
    if (it != m_latency.end())
    {
        return it->second;
    }
    m_hops.clear();
    m_topo->AppendRoute(a, b, -1, m_hops);
    double ns = 0;
    for (const auto& h : m_hops)
    {
        ns += m_topo->GetLinks()[h.link].latencyNs;
    }
    const Time t = NanoSeconds(std::llround(ns));
    m_latency.emplace(key, t);
    return t;
}

uint32_t
FlowMemoryTransport::NewOp()
{
    if (m_freeOps.empty())
    {
        m_ops.emplace_back();
        return static_cast<uint32_t>(m_ops.size() - 1);
    }
    const uint32_t o = m_freeOps.back();
    m_freeOps.pop_back();
    return o;
}

void
FlowMemoryTransport::Post(uint32_t npu, uint32_t mem, uint64_t bytes, bool write, uint64_t cookie)
{
    if (mem >= m_resource.size() || m_resource[mem] == UINT32_MAX)
    {
        throw std::runtime_error("fabric memory: node " + std::to_string(mem) +
                                 " is not a memory node of the flow backend's topology");
    }
    const uint32_t o = NewOp();
    Op& op = m_ops[o];
    op.npu = npu;
    op.mem = mem;
    op.bytes = bytes;
    op.write = write;
    op.cookie = cookie;
    op.used = true;
    if (!write)
    {
        EventBatcher::Schedule(Latency(npu, mem), &FlowMemoryTransport::ReadArrive, this, o);
        return;
    }
    EventBatcher::Schedule(Latency(npu, mem), &FlowMemoryTransport::WriteArrive, this, o);
    if (bytes > 0)
    {
        NetMessage msg;
        msg.src = npu;
        msg.dst = mem;
        msg.bytes = bytes;
        msg.tag = o;
        msg.tclass = TrafficClass::MEMORY;
        m_backend->SendThrough(msg, m_resource[mem], this, 0);
    }
}

void
FlowMemoryTransport::ReadArrive(void* obj, uint64_t o, uint64_t)
{
    auto* t = static_cast<FlowMemoryTransport*>(obj);
    if (!t->m_backend)
    {
        return; // disposed
    }
    Op& op = t->m_ops[o];
    op.grant = t->m_devices[op.mem]->Read(op.bytes);
    EventBatcher::Schedule(op.grant.dataStart - Simulator::Now(),
                           &FlowMemoryTransport::StartRead,
                           t,
                           o);
}

void
FlowMemoryTransport::StartRead(void* obj, uint64_t o, uint64_t)
{
    auto* t = static_cast<FlowMemoryTransport*>(obj);
    if (!t->m_backend)
    {
        return;
    }
    const Op& op = t->m_ops[o];
    if (op.bytes == 0)
    {
        EventBatcher::Schedule(t->Latency(op.mem, op.npu), &FlowMemoryTransport::Done, t, o);
        return;
    }
    NetMessage msg;
    msg.src = op.mem;
    msg.dst = op.npu;
    msg.bytes = op.bytes;
    msg.tag = o;
    msg.tclass = TrafficClass::MEMORY;
    t->m_backend->SendThrough(msg, t->m_resource[op.mem], t, 0);
}

void
FlowMemoryTransport::WriteArrive(void* obj, uint64_t o, uint64_t)
{
    auto* t = static_cast<FlowMemoryTransport*>(obj);
    if (!t->m_backend)
    {
        return;
    }
    Op& op = t->m_ops[o];
    op.grant = t->m_devices[op.mem]->WriteStart(op.bytes);
    if (op.bytes == 0)
    {
        // nothing flows: written after the device's slot, completion back to the NPU
        const Time done = t->m_devices[op.mem]->WriteDone(op.grant);
        EventBatcher::Schedule(done - Simulator::Now() + t->Latency(op.mem, op.npu),
                               &FlowMemoryTransport::Done,
                               t,
                               o);
    }
}

void
FlowMemoryTransport::MessageSent(const NetMessage&, uint64_t)
{
}

void
FlowMemoryTransport::MessageDelivered(const NetMessage& msg)
{
    const uint32_t o = static_cast<uint32_t>(msg.tag);
    Op& op = m_ops[o];
    if (!op.write)
    {
        m_bytesOut[op.mem] += double(op.bytes);
        Finish(o);
        return;
    }
    // the WRITE's last byte is at the node (its first arrived earlier: WriteArrive ran)
    m_bytesIn[op.mem] += double(op.bytes);
    const Time done = m_devices[op.mem]->WriteDone(op.grant);
    EventBatcher::Schedule(done - Simulator::Now() + Latency(op.mem, op.npu),
                           &FlowMemoryTransport::Done,
                           this,
                           o);
}

void
FlowMemoryTransport::Done(void* obj, uint64_t o, uint64_t)
{
    auto* t = static_cast<FlowMemoryTransport*>(obj);
    if (t->m_backend)
    {
        t->Finish(static_cast<uint32_t>(o));
    }
}

void
FlowMemoryTransport::Finish(uint32_t o)
{
    const uint64_t cookie = m_ops[o].cookie;
    m_ops[o].used = false;
    m_freeOps.push_back(o);
    if (m_model)
    {
        m_model->MessageDone(cookie);
    }
}

std::string
FlowMemoryTransport::GetName() const
{
    return "flow";
}

double
FlowMemoryTransport::SampleLinkUtilisation(uint32_t mem)
{
    if (mem >= m_link.size() || m_link[mem] == UINT32_MAX)
    {
        return 0;
    }
    const uint32_t l = m_link[mem];
    const double cap = m_topo->GetLinks()[l].bytesPerNs;
    const double r = std::max(m_backend->GetLinkRate(l, 0), m_backend->GetLinkRate(l, 1));
    return cap > 0 ? std::min(1.0, r / cap) : 0;
}

double
FlowMemoryTransport::GetLinkBytes(uint32_t mem) const
{
    return mem < m_bytesIn.size() ? std::max(m_bytesIn[mem], m_bytesOut[mem]) : 0;
}

Ptr<MemoryDevice>
FlowMemoryTransport::GetDevice(uint32_t mem) const
{
    return mem < m_devices.size() ? m_devices[mem] : nullptr;
}

} // namespace astra
} // namespace ns3
