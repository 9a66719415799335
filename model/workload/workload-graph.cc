/*
 * WorkloadGraph helpers: names, index, validation (dangling deps, cycles).
 */

#include "workload-graph.h"

#include "ns3/log.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AstraWorkloadGraph");

namespace astra
{

namespace
{

/// Fast id -> position lookup for validation: a table when ids are dense, else a hash map.
class IdLookup
{
  public:
    explicit IdLookup(const std::vector<WorkloadNode>& nodes)
    {
        if (nodes.empty())
        {
            return;
        }
        uint64_t lo = nodes[0].id;
        uint64_t hi = nodes[0].id;
        for (const auto& n : nodes)
        {
            lo = std::min(lo, n.id);
            hi = std::max(hi, n.id);
        }
        m_lo = lo;
        if (hi - lo < 4 * static_cast<uint64_t>(nodes.size()) + 1024)
        {
            m_dense = true;
            m_table.assign(hi - lo + 1, kNone);
            for (uint32_t i = 0; i < nodes.size(); ++i)
            {
                m_table[nodes[i].id - lo] = i;
            }
        }
        else
        {
            m_map.reserve(nodes.size());
            for (uint32_t i = 0; i < nodes.size(); ++i)
            {
                m_map.emplace(nodes[i].id, i);
            }
        }
    }

    /// \return position of id, or kNone
    uint32_t Find(uint64_t id) const
    {
        if (m_dense)
        {
            return id < m_lo || id - m_lo >= m_table.size() ? kNone : m_table[id - m_lo];
        }
        auto it = m_map.find(id);
        return it == m_map.end() ? kNone : it->second;
    }

    static constexpr uint32_t kNone = 0xffffffffu; //!< not found

  private:
    bool m_dense{false};
    uint64_t m_lo{0};
    std::vector<uint32_t> m_table;
    std::unordered_map<uint64_t, uint32_t> m_map;
};

} // namespace

const char*
CollTypeName(CollType t)
{
    switch (t)
    {
    case CollType::ALL_REDUCE:
        return "ALL_REDUCE";
    case CollType::REDUCE:
        return "REDUCE";
    case CollType::ALL_GATHER:
        return "ALL_GATHER";
    case CollType::GATHER:
        return "GATHER";
    case CollType::SCATTER:
        return "SCATTER";
    case CollType::BROADCAST:
        return "BROADCAST";
    case CollType::ALL_TO_ALL:
        return "ALL_TO_ALL";
    case CollType::REDUCE_SCATTER:
        return "REDUCE_SCATTER";
    case CollType::REDUCE_SCATTER_BLOCK:
        return "REDUCE_SCATTER_BLOCK";
    case CollType::BARRIER:
        return "BARRIER";
    }
    return "UNKNOWN_COLL";
}

const char*
NodeKindName(NodeKind k)
{
    switch (k)
    {
    case NodeKind::INVALID:
        return "INVALID";
    case NodeKind::METADATA:
        return "METADATA";
    case NodeKind::MEM_LOAD:
        return "MEM_LOAD";
    case NodeKind::MEM_STORE:
        return "MEM_STORE";
    case NodeKind::COMP:
        return "COMP";
    case NodeKind::COMM_SEND:
        return "COMM_SEND";
    case NodeKind::COMM_RECV:
        return "COMM_RECV";
    case NodeKind::COMM_COLL:
        return "COMM_COLL";
    }
    return "UNKNOWN_NODE";
}

std::ostream&
operator<<(std::ostream& os, NodeKind k)
{
    return os << NodeKindName(k);
}

std::ostream&
operator<<(std::ostream& os, CollType t)
{
    return os << CollTypeName(t);
}

bool
operator==(const WorkloadNode& a, const WorkloadNode& b)
{
    return a.id == b.id && a.name == b.name && a.kind == b.kind && a.dataDeps == b.dataDeps &&
           a.ctrlDeps == b.ctrlDeps && a.durationMicros == b.durationMicros &&
           a.numOps == b.numOps && a.tensorSize == b.tensorSize && a.hasNumOps == b.hasNumOps &&
           a.isCpuOp == b.isCpuOp && a.collType == b.collType && a.commSize == b.commSize &&
           a.commSrc == b.commSrc && a.commDst == b.commDst && a.commTag == b.commTag &&
           a.commPriority == b.commPriority && a.pgName == b.pgName &&
           a.involvedDim == b.involvedDim && a.opType == b.opType && a.durationNs == b.durationNs;
}

bool
operator!=(const WorkloadNode& a, const WorkloadNode& b)
{
    return !(a == b);
}

void
WorkloadGraph::BuildIndex()
{
    index.clear();
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        auto res = index.emplace(nodes[i].id, i);
        if (!res.second)
        {
            std::ostringstream os;
            os << file << ": duplicate node id " << nodes[i].id << " (nodes #" << res.first->second
               << " '" << nodes[res.first->second].name << "' and #" << i << " '" << nodes[i].name
               << "')";
            throw WorkloadError(os.str());
        }
    }
}

const WorkloadNode*
WorkloadGraph::Find(uint64_t id) const
{
    auto it = index.find(id);
    if (it == index.end() || it->second >= nodes.size())
    {
        return nullptr;
    }
    return &nodes[it->second];
}

uint64_t
WorkloadGraph::Validate(bool dropDanglingCtrl, bool dropDanglingData)
{
    BuildIndex();
    const IdLookup ids(nodes);
    uint64_t dropped = 0;
    for (auto& n : nodes)
    {
        for (int kind = 0; kind < 2; ++kind)
        {
            auto& deps = kind == 0 ? n.dataDeps : n.ctrlDeps;
            bool drop = kind == 0 ? dropDanglingData : dropDanglingCtrl;
            for (auto it = deps.begin(); it != deps.end();)
            {
                if (ids.Find(*it) != IdLookup::kNone)
                {
                    ++it;
                    continue;
                }
                if (!drop)
                {
                    std::ostringstream os;
                    os << file << ": node " << n.id << " ('" << n.name << "') has a dangling "
                       << (kind == 0 ? "data" : "ctrl") << " dependency on id " << *it
                       << ", which is not in the file";
                    if (kind == 1)
                    {
                        os << " (real PyTorch captures have such control dependencies: "
                              "--drop-dangling-ctrl-deps drops them, with a count)";
                    }
                    throw WorkloadError(os.str());
                }
                NS_LOG_DEBUG(file << ": dropping dangling " << (kind == 0 ? "data" : "ctrl")
                                  << " dep " << *it << " of node " << n.id);
                it = deps.erase(it);
                ++dropped;
            }
        }
    }
    if (dropped > 0)
    {
        ASTRA_WARN(
            "dangling-dependencies-dropped",
            file << ": dropped " << dropped << " "
                 << (dropDanglingData && !dropDanglingCtrl
                         ? "data"
                         : (dropDanglingCtrl && !dropDanglingData ? "control" : "control and data"))
                 << " dependencies naming ids that are not in the file");
    }
    droppedDanglingDeps += dropped;
    TopologicalOrder(); // throws on cycles
    return dropped;
}

DependencyTable
DependencyTable::Build(const WorkloadGraph& g)
{
    const auto& nodes = g.nodes;
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    const IdLookup ids(nodes);
    DependencyTable t;
    t.pending.assign(n, 0);
    t.childStart.assign(n + 1, 0);
    // count the children of every node, then fill them in node order
    std::vector<std::pair<uint32_t, uint32_t>> edges; // (parent, child)
    for (uint32_t i = 0; i < n; ++i)
    {
        for (int kind = 0; kind < 2; ++kind)
        {
            for (uint64_t d : kind == 0 ? nodes[i].dataDeps : nodes[i].ctrlDeps)
            {
                const uint32_t pos = ids.Find(d);
                if (pos == IdLookup::kNone)
                {
                    t.dangling.push_back({i, d, kind == 1});
                    continue;
                }
                edges.emplace_back(pos, i);
                ++t.pending[i];
                ++t.childStart[pos + 1];
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        t.childStart[i + 1] += t.childStart[i];
    }
    t.children.assign(edges.size(), 0);
    std::vector<uint32_t> fill(t.childStart.begin(), t.childStart.end() - 1);
    for (const auto& e : edges)
    {
        t.children[fill[e.first]++] = e.second;
    }
    return t;
}

std::vector<uint64_t>
WorkloadGraph::TopologicalOrder() const
{
    const size_t n = nodes.size();
    const IdLookup ids(nodes);
    // dangling deps are left out here; Validate() reports them
    DependencyTable deps = DependencyTable::Build(*this);
    std::vector<uint32_t>& pending = deps.pending;
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (pending[i] == 0)
        {
            ready.push_back(i);
        }
    }
    std::vector<uint64_t> order;
    order.reserve(n);
    size_t head = 0;
    while (head < ready.size())
    {
        uint32_t i = ready[head++];
        order.push_back(nodes[i].id);
        for (uint32_t k = deps.childStart[i]; k < deps.childStart[i + 1]; ++k)
        {
            const uint32_t c = deps.children[k];
            if (--pending[c] == 0)
            {
                ready.push_back(c);
            }
        }
    }
    if (order.size() == n)
    {
        return order;
    }
    // Every node left has a pending dependency on another node left: walk the
    // dependencies backwards until a node repeats; that closes a cycle.
    uint32_t cur = 0;
    while (pending[cur] == 0)
    {
        ++cur;
    }
    std::vector<uint32_t> path;
    std::map<uint32_t, size_t> pos;
    while (pos.count(cur) == 0)
    {
        pos[cur] = path.size();
        path.push_back(cur);
        uint32_t next = cur;
        for (const auto* deps : {&nodes[cur].dataDeps, &nodes[cur].ctrlDeps})
        {
            for (uint64_t d : *deps)
            {
                uint32_t pos = ids.Find(d);
                if (pos != IdLookup::kNone && pending[pos] != 0)
                {
                    next = pos;
                    break;
                }
            }
            if (next != cur || pending[cur] == 0)
            {
                break;
            }
        }
        if (next == cur)
        {
            // self dependency
            break;
        }
        cur = next;
    }
    size_t start = pos.count(cur) ? pos[cur] : path.size() - 1;
    std::ostringstream os;
    os << file << ": dependency cycle among " << (n - order.size())
       << " node(s); cycle through node ids ";
    // path follows deps backwards; print in execution order
    std::vector<uint32_t> cyc(path.begin() + start, path.end());
    std::reverse(cyc.begin(), cyc.end());
    for (size_t k = 0; k < cyc.size(); ++k)
    {
        os << nodes[cyc[k]].id << " -> ";
    }
    os << nodes[cyc.front()].id;
    throw WorkloadError(os.str());
}

} // namespace astra
} // namespace ns3
