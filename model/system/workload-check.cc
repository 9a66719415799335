/*
 * The workloads of a run checked as a whole (workload-check.h).
 */

#include "workload-check.h"

#include "astra-sim-application.h"
#include "astra-system.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-limits.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace ns3
{
namespace astra
{

namespace
{

/// Collects problems; the first one is reported, with the number found in all.
class Problems
{
  public:
    /// \param message one problem
    void Add(const std::string& message)
    {
        if (m_count++ == 0)
        {
            m_first = message;
        }
    }

    /// Throw the first problem (nothing if none).
    void Throw() const
    {
        if (m_count == 0)
        {
            return;
        }
        std::string s = m_first;
        if (m_count > 1)
        {
            s += " (" + std::to_string(m_count) + " problems found in all; the first is shown)";
        }
        throw WorkloadError(s);
    }

  private:
    std::string m_first; //!< the first problem
    uint64_t m_count{0}; //!< problems found
};

/// \return the name of a rank's trace for messages
std::string
TraceName(const WorkloadGraph& g, uint32_t rank)
{
    return g.file.empty() ? "the workload of NPU " + std::to_string(rank) : g.file;
}

/// \return "<file>: node <id> '<name>' (<kind>)"
std::string
Where(const WorkloadGraph& g, uint32_t rank, const WorkloadNode& n)
{
    std::ostringstream os;
    os << TraceName(g, rank) << ": node " << n.id;
    if (!n.name.empty())
    {
        os << " '" << n.name << "'";
    }
    os << " (" << NodeKindName(n.kind) << ")";
    return os.str();
}

/// \return what a rank's trace holds, for a message about what it lacks
std::string
TraceExtent(const WorkloadGraph& g)
{
    if (g.nodes.empty())
    {
        return "has no nodes at all";
    }
    return "has " + std::to_string(g.nodes.size()) + " nodes, the last of id " +
           std::to_string(g.nodes.back().id) + " (a truncated trace?)";
}

/// One SEND or RECV node, for matching across ranks.
struct P2PNode
{
    uint32_t rank;  //!< its NPU
    uint32_t index; //!< position in its graph
    uint64_t bytes; //!< comm_size
};

/// (source, destination, tag) of a point-to-point message.
using P2PKey = std::tuple<uint32_t, uint32_t, int64_t>;

/// The SENDs and RECVs of one (source, destination, tag).
struct P2PMatch
{
    std::vector<P2PNode> sends; //!< in rank and file order
    std::vector<P2PNode> recvs; //!< in rank and file order
};

/// Check that every SEND has a RECV of the same size and every RECV a SEND.
/// \param traces the graphs by rank \param p2p the nodes \param what "NPU" or "rank"
/// \param problems the collector
void
MatchP2P(const std::vector<const WorkloadGraph*>& traces,
         const std::map<P2PKey, P2PMatch>& p2p,
         const std::string& what,
         Problems& problems)
{
    for (const auto& [key, m] : p2p)
    {
        const uint32_t src = std::get<0>(key);
        const uint32_t dst = std::get<1>(key);
        const int64_t tag = std::get<2>(key);
        auto node = [&](const P2PNode& x) -> const WorkloadNode& {
            return traces[x.rank]->nodes[x.index];
        };
        if (m.sends.size() > m.recvs.size())
        {
            const P2PNode& s = m.sends[m.recvs.size()];
            std::ostringstream os;
            os << Where(*traces[src], src, node(s)) << ": its SEND to " << what << " " << dst
               << " (tag " << tag << ", " << s.bytes
               << " bytes) is never received: " << TraceName(*traces[dst], dst) << " has "
               << m.recvs.size() << " RECV(s) from " << what << " " << src << " with tag " << tag
               << " for " << m.sends.size() << " SEND(s)";
            if (traces[dst]->nodes.empty())
            {
                os << " (it has no nodes at all)";
            }
            problems.Add(os.str());
            continue;
        }
        if (m.recvs.size() > m.sends.size())
        {
            const P2PNode& r = m.recvs[m.sends.size()];
            std::ostringstream os;
            os << Where(*traces[dst], dst, node(r)) << ": its RECV from " << what << " " << src
               << " (tag " << tag << ") has no matching SEND: " << TraceName(*traces[src], src)
               << " has " << m.sends.size() << " SEND(s) to " << what << " " << dst << " with tag "
               << tag << " for " << m.recvs.size()
               << " RECV(s) (the run would wait for it forever)";
            if (traces[src]->nodes.empty())
            {
                os << "; it has no nodes at all";
            }
            problems.Add(os.str());
            continue;
        }
        std::vector<uint64_t> a;
        std::vector<uint64_t> b;
        for (size_t i = 0; i < m.sends.size(); ++i)
        {
            a.push_back(m.sends[i].bytes);
            b.push_back(m.recvs[i].bytes);
        }
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b)
        {
            // name the first pair (in file order) whose sizes differ
            size_t i = 0;
            while (i + 1 < m.sends.size() && m.sends[i].bytes == m.recvs[i].bytes)
            {
                ++i;
            }
            const P2PNode& s = m.sends[i];
            const P2PNode& r = m.recvs[i];
            std::ostringstream os;
            os << "SEND/RECV sizes differ: " << Where(*traces[src], src, node(s)) << " sends "
               << s.bytes << " bytes to " << what << " " << dst << " (tag " << tag << "), but "
               << Where(*traces[dst], dst, node(r)) << " receives " << r.bytes << " bytes";
            problems.Add(os.str());
        }
    }
}

/// The collective type whose custom traces serve a collective of type t.
CollType
CustomKey(CollType t)
{
    return t == CollType::REDUCE_SCATTER_BLOCK ? CollType::REDUCE_SCATTER : t;
}

/// Check the traces of one custom collective algorithm.
void
CheckCustomTraces(CollType type, const std::vector<WorkloadGraph>& traces, Problems& problems)
{
    const uint32_t n = static_cast<uint32_t>(traces.size());
    std::vector<const WorkloadGraph*> ptrs;
    std::map<P2PKey, P2PMatch> p2p;
    for (uint32_t r = 0; r < n; ++r)
    {
        const WorkloadGraph& g = traces[r];
        ptrs.push_back(&g);
        for (uint32_t i = 0; i < g.nodes.size(); ++i)
        {
            const WorkloadNode& node = g.nodes[i];
            const std::string where =
                "custom " + std::string(CollTypeName(type)) + " " + Where(g, r, node);
            if (node.kind != NodeKind::COMM_SEND && node.kind != NodeKind::COMM_RECV &&
                node.kind != NodeKind::COMP && node.kind != NodeKind::METADATA)
            {
                problems.Add(where + ": a custom algorithm's trace holds SEND, RECV and COMP "
                                     "nodes only");
                continue;
            }
            if (node.kind != NodeKind::COMM_SEND && node.kind != NodeKind::COMM_RECV)
            {
                continue;
            }
            const bool send = node.kind == NodeKind::COMM_SEND;
            const int64_t peer = send ? node.commDst : node.commSrc;
            if (peer < 0 || peer >= int64_t(n) || peer == int64_t(r))
            {
                problems.Add(where + ": " + (send ? "comm_dst " : "comm_src ") +
                             std::to_string(peer) + (peer == int64_t(r) ? " is its own rank" : "") +
                             ": a peer is another rank of the " + std::to_string(n) +
                             " traces (0.." + std::to_string(n - 1) + ")");
                continue;
            }
            const P2PKey key = send ? P2PKey{r, uint32_t(peer), node.commTag}
                                    : P2PKey{uint32_t(peer), r, node.commTag};
            (send ? p2p[key].sends : p2p[key].recvs).push_back({r, i, node.commSize});
        }
    }
    MatchP2P(ptrs, p2p, "rank", problems);
}

} // namespace

void
CheckTraceGroups(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs,
                 const SystemContext& ctx)
{
    Problems problems;
    const uint32_t npus = ctx.GetNpuCount();
    // name -> (sorted members, the trace that declared them first)
    std::map<std::string, std::pair<std::vector<uint32_t>, std::string>> declared;
    for (uint32_t r = 0; r < graphs.size(); ++r)
    {
        const WorkloadGraph& g = *graphs[r];
        for (const auto& [name, members] : g.commGroups)
        {
            const std::string where =
                TraceName(g, r) + ": communicator group '" + name + "' declared in the trace";
            if (members.empty())
            {
                problems.Add(where + " is empty");
                continue;
            }
            std::vector<uint32_t> sorted = members;
            std::sort(sorted.begin(), sorted.end());
            if (sorted.back() >= npus)
            {
                problems.Add(where + " names NPU " + std::to_string(sorted.back()) +
                             " but the topology has " + std::to_string(npus) + " NPUs");
                continue;
            }
            auto dup = std::adjacent_find(sorted.begin(), sorted.end());
            if (dup != sorted.end())
            {
                problems.Add(where + " lists NPU " + std::to_string(*dup) + " twice");
                continue;
            }
            if (ctx.HasCommGroup(name))
            {
                std::string canonical;
                auto file = ctx.ResolveGroup(name, &canonical);
                if (*file != sorted)
                {
                    problems.Add(where +
                                 " has other members than the communicator-group "
                                 "file's group '" +
                                 name + "'");
                }
                continue;
            }
            auto it = declared.find(name);
            if (it == declared.end())
            {
                declared.emplace(name, std::make_pair(sorted, TraceName(g, r)));
            }
            else if (it->second.first != sorted)
            {
                problems.Add(where + " has other members than the same group declared in " +
                             it->second.second);
            }
        }
    }
    problems.Throw();
}

void
CheckWorkloads(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs,
               const SystemContext& ctx)
{
    Problems problems;
    const SystemParams& params = ctx.GetParams();
    const uint32_t npus = ctx.GetNpuCount();
    const size_t dims = ctx.GetDims().size();
    const double commScale = params.compat ? 1.0 : params.commScale;
    const uint64_t maxBytes = limits::kMaxMessageBytes;

    std::vector<const WorkloadGraph*> traces;
    std::map<P2PKey, P2PMatch> p2p;
    // (group, name) -> (rank, count) in rank order, for collectives spanning their whole group
    std::unordered_map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> counts;
    std::map<std::string, std::pair<std::string, std::string>> countKeys; // key -> (group, name)
    // custom algorithm type -> group size -> a node using it
    std::map<CollType, std::map<uint32_t, std::string>> customUse;

    for (uint32_t r = 0; r < graphs.size(); ++r)
    {
        const WorkloadGraph& g = *graphs[r];
        traces.push_back(&g);
        for (uint32_t i = 0; i < g.nodes.size(); ++i)
        {
            const WorkloadNode& n = g.nodes[i];
            auto fail = [&](const std::string& what) {
                problems.Add(Where(g, r, n) + ": " + what);
            };
            auto size = [&](uint64_t bytes, const char* what) {
                if (double(bytes) * commScale > double(maxBytes))
                {
                    std::ostringstream os;
                    os << what << " of " << bytes << " bytes";
                    if (commScale != 1.0)
                    {
                        os << " (x --comm-scale " << commScale << ")";
                    }
                    os << " exceeds the limit of " << maxBytes
                       << " bytes (1 TiB) per message: such a run cannot finish";
                    fail(os.str());
                }
            };
            switch (n.kind)
            {
            case NodeKind::INVALID:
                fail("a node of type INVALID (0) is no operation: give it a type or remove it");
                break;
            case NodeKind::METADATA:
                break;
            case NodeKind::COMP: {
                if (n.durationNs == 0 && double(n.durationMicros) * 1000 > limits::kMaxTimeNs)
                {
                    fail("duration_micros " + std::to_string(n.durationMicros) +
                         " exceeds the longest node accepted, 1e12 ns (1000 s)");
                    break;
                }
                const double ns = AstraSimApplication::ComputeTimeNs(n, params);
                if (!(ns <= limits::kMaxTimeNs))
                {
                    std::ostringstream os;
                    os << "its compute time " << ns
                       << " ns (after --compute-scale and the roofline) exceeds the longest node "
                          "accepted, 1e12 ns (1000 s)";
                    fail(os.str());
                }
                break;
            }
            case NodeKind::MEM_LOAD:
            case NodeKind::MEM_STORE:
                if (n.tensorSize > maxBytes)
                {
                    fail("tensor_size " + std::to_string(n.tensorSize) +
                         " bytes exceeds the limit of " + std::to_string(maxBytes) +
                         " bytes (1 TiB) per memory access");
                }
                break;
            case NodeKind::COMM_COLL: {
                if (n.commSize == 0 && n.collType != CollType::BARRIER)
                {
                    fail(std::string(CollTypeName(n.collType)) +
                         " without a size (comm_size missing or 0); only a BARRIER carries no "
                         "data");
                    break;
                }
                size(n.commSize, CollTypeName(n.collType));
                if (n.involvedDim.size() > dims)
                {
                    // ASTRA-sim ignores the entries beyond the topology's dimensions (its
                    // tutorial traces have them): a warning, counted
                    ASTRA_WARN("involved-dim-beyond-topology",
                               Where(g, r, n)
                                   << ": involved_dim has " << n.involvedDim.size()
                                   << " entries but the topology has " << dims
                                   << " dimension(s); the entries beyond are ignored, as "
                                      "ASTRA-sim ignores them");
                }
                std::string group;
                std::shared_ptr<const std::vector<uint32_t>> members;
                try
                {
                    members = ctx.ResolveGroup(n.pgName, &group);
                }
                catch (const std::exception& e)
                {
                    fail(e.what());
                    break;
                }
                if (!std::binary_search(members->begin(), members->end(), r))
                {
                    fail("NPU " + std::to_string(r) + " issues it on communicator group '" +
                         n.pgName + "' (" + std::to_string(members->size()) +
                         " NPUs) but is not a member of it");
                    break;
                }
                // the root of a rooted collective (the application's rule: comm_dst for
                // REDUCE / GATHER, comm_src for BROADCAST / SCATTER, else the other one)
                {
                    int64_t root = -1;
                    if (n.collType == CollType::REDUCE || n.collType == CollType::GATHER)
                    {
                        root = n.commDst >= 0 ? n.commDst : n.commSrc;
                    }
                    else if (n.collType == CollType::BROADCAST || n.collType == CollType::SCATTER)
                    {
                        root = n.commSrc >= 0 ? n.commSrc : n.commDst;
                    }
                    if (root >= 0 &&
                        (root > int64_t(std::numeric_limits<uint32_t>::max()) ||
                         !std::binary_search(members->begin(), members->end(), uint32_t(root))))
                    {
                        fail(std::string(CollTypeName(n.collType)) + ": its root NPU " +
                             std::to_string(root) + " (comm_src / comm_dst) is not a member of " +
                             (n.pgName.empty() ? std::string("the NPUs")
                                               : "communicator group '" + n.pgName + "'"));
                        break;
                    }
                }
                // a collective spanning its whole group (every dimension involved)
                const bool whole =
                    std::all_of(n.involvedDim.begin(),
                                n.involvedDim.begin() + std::min(n.involvedDim.size(), dims),
                                [](bool b) { return b; });
                if (whole)
                {
                    std::string key = group;
                    key += '\x1f';
                    key += std::to_string(n.involvedDim.size());
                    key += '\x1f';
                    key += n.name;
                    auto& v = counts[key];
                    if (v.empty() || v.back().first != r)
                    {
                        v.emplace_back(r, 0);
                        countKeys.emplace(key, std::make_pair(group, n.name));
                    }
                    v.back().second++;
                    if (params.custom.count(CustomKey(n.collType)) != 0)
                    {
                        customUse[CustomKey(n.collType)].emplace(
                            static_cast<uint32_t>(members->size()),
                            Where(g, r, n) + " on group '" + n.pgName + "'");
                    }
                }
                break;
            }
            case NodeKind::COMM_SEND:
            case NodeKind::COMM_RECV: {
                const bool send = n.kind == NodeKind::COMM_SEND;
                const int64_t peer = send ? n.commDst : n.commSrc;
                const char* attr = send ? "comm_dst" : "comm_src";
                if (peer < 0)
                {
                    fail(std::string(attr) + " " + std::to_string(peer) +
                         (peer == -1 ? " (missing)" : "") + ": expected an NPU 0.." +
                         std::to_string(npus - 1));
                    break;
                }
                if (peer >= int64_t(npus))
                {
                    fail(std::string(attr) + " " + std::to_string(peer) +
                         ": the topology has NPUs 0.." + std::to_string(npus - 1));
                    break;
                }
                if (peer == int64_t(r))
                {
                    fail(std::string(attr) + " " + std::to_string(peer) +
                         " is the node's own NPU: a message to itself never crosses the network");
                    break;
                }
                size(n.commSize, send ? "SEND" : "RECV");
                const P2PKey key = send ? P2PKey{r, uint32_t(peer), n.commTag}
                                        : P2PKey{uint32_t(peer), r, n.commTag};
                (send ? p2p[key].sends : p2p[key].recvs).push_back({r, i, n.commSize});
                break;
            }
            }
        }
    }
    problems.Throw();

    MatchP2P(traces, p2p, "NPU", problems);

    // every member issues each named collective of a group the same number of times
    for (const auto& [key, perRank] : counts)
    {
        const auto& gn = countKeys.at(key);
        std::string canonical;
        auto members = ctx.ResolveGroup(gn.first, &canonical);
        uint32_t most = 0;
        uint32_t mostRank = 0;
        for (const auto& rc : perRank)
        {
            if (rc.second > most)
            {
                most = rc.second;
                mostRank = rc.first;
            }
        }
        size_t j = 0;
        for (uint32_t m : *members)
        {
            while (j < perRank.size() && perRank[j].first < m)
            {
                ++j;
            }
            const uint32_t c = j < perRank.size() && perRank[j].first == m ? perRank[j].second : 0;
            if (c != most)
            {
                std::ostringstream os;
                os << "collective '" << gn.second << "' on "
                   << (gn.first.empty() ? std::string("all NPUs")
                                        : "communicator group '" + gn.first + "'")
                   << ": " << TraceName(*traces[mostRank], mostRank) << " (NPU " << mostRank
                   << ") issues it " << most << " time(s), " << TraceName(*traces[m], m) << " (NPU "
                   << m << ") " << c << " time(s); it " << TraceExtent(*traces[m])
                   << ". Every member issues a collective alike (the run would wait forever)";
                problems.Add(os.str());
                break;
            }
        }
    }

    // custom algorithms: one trace per member, and traces that fit together
    for (const auto& [type, tracesPtr] : params.custom)
    {
        if (!tracesPtr)
        {
            continue;
        }
        const uint32_t n = static_cast<uint32_t>(tracesPtr->size());
        auto use = customUse.find(type);
        if (use != customUse.end())
        {
            for (const auto& [groupSize, where] : use->second)
            {
                if (groupSize != n)
                {
                    problems.Add(where + ": the custom " + std::string(CollTypeName(type)) +
                                 " algorithm has " + std::to_string(n) +
                                 " rank traces, but this collective has " +
                                 std::to_string(groupSize) + " members (one trace per member)");
                }
            }
        }
        CheckCustomTraces(type, *tracesPtr, problems);
    }
    problems.Throw();
}

} // namespace astra
} // namespace ns3
