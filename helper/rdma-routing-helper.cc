#include "rdma-routing-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-node-info.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-transit-forwarder.h"

#include <deque>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaRoutingHelper");

RdmaRoutingHelper::RdmaRoutingHelper() = default;

void
RdmaRoutingHelper::PopulateRoutingTables()
{
    NodeContainer all;
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        Ptr<Node> n = NodeList::GetNode(i);
        if (n->GetObject<RdmaNodeInfo>())
        {
            all.Add(n);
        }
    }
    PopulateRoutingTables(all);
}

void
RdmaRoutingHelper::PopulateRoutingTables(NodeContainer nodes)
{
    const uint32_t n = nodes.GetN();
    std::unordered_map<uint32_t, uint32_t> byId; // node id -> graph index (set-up only)
    std::vector<Ptr<RdmaNodeInfo>> info(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        info[i] = nodes.Get(i)->GetObject<RdmaNodeInfo>();
        NS_ABORT_MSG_IF(!info[i],
                        "RdmaRoutingHelper: node " << nodes.Get(i)->GetId()
                                                   << " was not installed by RdmaHelper");
        byId[nodes.Get(i)->GetId()] = i;
    }
    // adjacency: per node, per port, the peer's graph index (or -1)
    std::vector<std::vector<int64_t>> peer(n);
    std::vector<bool> relay(n);
    std::vector<uint32_t> hosts; // graph indices of hosts
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t np = info[i]->GetNPorts();
        peer[i].assign(np, -1);
        for (uint32_t p = 0; p < np; ++p)
        {
            Ptr<RdmaNetDevice> dev = info[i]->GetPort(p);
            Ptr<RdmaChannel> ch = dev->GetRdmaChannel();
            if (!ch)
            {
                continue;
            }
            Ptr<RdmaNetDevice> other = ch->GetPeer(dev);
            if (!other || !other->GetNode())
            {
                continue;
            }
            auto it = byId.find(other->GetNode()->GetId());
            if (it != byId.end())
            {
                peer[i][p] = it->second;
            }
        }
        if (info[i]->IsHost())
        {
            hosts.push_back(i);
            relay[i] =
                np > 1 && (info[i]->IsRelay() || nodes.Get(i)->GetObject<RdmaTransitForwarder>());
        }
        else
        {
            relay[i] = true;
        }
    }
    // BFS from every destination host over reversed (= same, full-duplex) links
    std::vector<uint32_t> dist(n);
    std::deque<uint32_t> queue;
    const uint32_t inf = 0xFFFFFFFFu;
    for (uint32_t d : hosts)
    {
        const uint32_t dstHost = info[d]->GetHostIndex();
        std::fill(dist.begin(), dist.end(), inf);
        dist[d] = 0;
        queue.clear();
        queue.push_back(d);
        while (!queue.empty())
        {
            const uint32_t u = queue.front();
            queue.pop_front();
            if (u != d && !relay[u])
            {
                continue; // reachable, but traffic cannot pass through u
            }
            for (int64_t v : peer[u])
            {
                if (v >= 0 && dist[v] == inf)
                {
                    dist[v] = dist[u] + 1;
                    queue.push_back(static_cast<uint32_t>(v));
                }
            }
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            if (i == d || dist[i] == inf)
            {
                continue;
            }
            std::vector<uint32_t> ports;
            for (uint32_t p = 0; p < peer[i].size(); ++p)
            {
                const int64_t v = peer[i][p];
                if (v >= 0 && dist[v] + 1 == dist[i] && (static_cast<uint32_t>(v) == d || relay[v]))
                {
                    ports.push_back(p);
                }
            }
            Ptr<RdmaForwardingTable> table = nodes.Get(i)->GetObject<RdmaForwardingTable>();
            if (!table && info[i]->IsGhost())
            {
                continue; // a node of another rank (partial build): its rank routes it
            }
            NS_ABORT_MSG_IF(!table,
                            "RdmaRoutingHelper: node " << nodes.Get(i)->GetId()
                                                       << " has no RdmaForwardingTable");
            table->SetRoute(dstHost, ports, dist[i]);
        }
    }
    NS_LOG_INFO("routes installed for " << hosts.size() << " hosts on " << n << " nodes");
}

uint32_t
RdmaRoutingHelper::GetHops(Ptr<Node> node, uint32_t dstHost)
{
    Ptr<RdmaForwardingTable> t = node->GetObject<RdmaForwardingTable>();
    return t ? t->GetHops(dstHost) : 0xFFFFFFFFu;
}

void
RdmaRoutingHelper::SetDateline(Ptr<Node> a, Ptr<Node> b, uint8_t fromPrio, uint8_t toPrio)
{
    Ptr<Node> ends[2] = {a, b};
    uint32_t found = 0;
    for (int i = 0; i < 2; ++i)
    {
        Ptr<RdmaNodeInfo> info = ends[i]->GetObject<RdmaNodeInfo>();
        NS_ABORT_MSG_IF(!info, "SetDateline: node " << ends[i]->GetId() << " not installed");
        for (uint32_t p = 0; p < info->GetNPorts(); ++p)
        {
            Ptr<RdmaNetDevice> dev = info->GetPort(p);
            Ptr<RdmaNetDevice> peer = dev->GetRdmaChannel()->GetPeer(dev);
            if (peer && peer->GetNode() == ends[1 - i])
            {
                Ptr<RdmaSwitch> sw = ends[i]->GetObject<RdmaSwitch>(); // or transit forwarder
                NS_ABORT_MSG_IF(!sw,
                                "SetDateline: node " << ends[i]->GetId()
                                                     << " does not forward (no switch or "
                                                        "transit forwarder)");
                sw->SetPriorityRemap(p, fromPrio, toPrio);
                ++found;
            }
        }
    }
    NS_ABORT_MSG_IF(found == 0,
                    "SetDateline: nodes " << a->GetId() << " and " << b->GetId() << " not linked");
}

std::vector<uint32_t>
RdmaRoutingHelper::GetPorts(Ptr<Node> node, uint32_t dstHost)
{
    Ptr<RdmaForwardingTable> t = node->GetObject<RdmaForwardingTable>();
    return t ? t->GetPorts(dstHost) : std::vector<uint32_t>();
}

} // namespace ns3
