#include "custom-collective.h"

#include "ns3/astra-diagnostics.h"

#include <algorithm>
#include <string>

namespace ns3
{
namespace astra
{

CustomCollective::CustomCollective(const WorkloadGraph& trace,
                                   uint32_t groupSize,
                                   uint32_t tagMask,
                                   double computeScale)
    : m_trace(&trace),
      m_deps(DependencyTable::Build(trace)),
      m_remaining(static_cast<uint32_t>(trace.nodes.size())),
      m_groupSize(groupSize),
      m_tagMask(tagMask),
      m_computeScale(computeScale)
{
    // dependencies on ids that are not in the trace are dropped, with a warning
    for (const auto& d : m_deps.dangling)
    {
        ASTRA_WARN("custom-trace-dangling-dependency",
                   "custom collective trace " << trace.file << ": node " << trace.nodes[d.node].id
                                              << " names " << (d.ctrl ? "control" : "data")
                                              << " dependency " << d.dep
                                              << " which is not in the trace; ignored");
    }
}

bool
CustomCollective::IsFinished() const
{
    return m_remaining == 0;
}

void
CustomCollective::Arrive(uint32_t srcRank, uint32_t tag)
{
    m_arrivals.push_back({srcRank, tag});
}

void
CustomCollective::Run(std::vector<Action>& out)
{
    // issue every ready node (no dependencies left and not yet issued: marked UINT32_MAX)
    std::vector<uint32_t>& pending = m_deps.pending;
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < pending.size(); ++i)
    {
        if (pending[i] == 0)
        {
            pending[i] = UINT32_MAX;
            ready.push_back(i);
        }
    }
    for (uint32_t i : ready)
    {
        const WorkloadNode& n = m_trace->nodes[i];
        Action a;
        a.node = i;
        switch (n.kind)
        {
        case NodeKind::COMM_SEND:
            if (n.commDst < 0 || uint32_t(n.commDst) >= m_groupSize)
            {
                throw InputError("custom trace " + m_trace->file + " node " + std::to_string(n.id) +
                                 ": comm_dst " + std::to_string(n.commDst) +
                                 " outside the group of " + std::to_string(m_groupSize));
            }
            a.kind = Action::SEND;
            a.peerRank = static_cast<uint32_t>(n.commDst);
            a.bytes = std::max<uint64_t>(1, n.commSize);
            a.tag = uint32_t(n.commTag) & m_tagMask;
            out.push_back(a);
            break;
        case NodeKind::COMM_RECV:
            m_posted.push_back(i);
            break;
        case NodeKind::COMP:
            a.kind = Action::FINISH_AFTER;
            a.delay = Time::FromDouble(double(n.GetDurationNs()) * m_computeScale, Time::NS);
            out.push_back(a);
            break;
        default:
            a.kind = Action::FINISH_AFTER;
            a.delay = Time(0);
            out.push_back(a);
            break;
        }
    }
    if (!ready.empty())
    {
        MatchReceives(out);
    }
}

void
CustomCollective::MatchReceives(std::vector<Action>& out)
{
    for (size_t pi = 0; pi < m_posted.size();)
    {
        const WorkloadNode& n = m_trace->nodes[m_posted[pi]];
        bool matched = false;
        for (size_t ai = 0; ai < m_arrivals.size(); ++ai)
        {
            if (int64_t(m_arrivals[ai].srcRank) == n.commSrc &&
                m_arrivals[ai].tag == (uint32_t(n.commTag) & m_tagMask))
            {
                m_arrivals.erase(m_arrivals.begin() + ai);
                Action a;
                a.kind = Action::FINISH_AFTER;
                a.node = m_posted[pi];
                a.delay = Time(0);
                out.push_back(a);
                m_posted.erase(m_posted.begin() + pi);
                matched = true;
                break;
            }
        }
        if (!matched)
        {
            ++pi;
        }
    }
}

bool
CustomCollective::NodeDone(uint32_t node, std::vector<Action>& out)
{
    std::vector<uint32_t>& pending = m_deps.pending;
    const std::vector<uint32_t>& dependents = m_deps.children;
    bool any = false;
    for (uint32_t c = m_deps.childStart[node]; c < m_deps.childStart[node + 1]; ++c)
    {
        if (--pending[dependents[c]] == 0)
        {
            any = true;
        }
    }
    if (--m_remaining == 0)
    {
        return true;
    }
    if (any)
    {
        Run(out);
    }
    return false;
}

std::vector<int32_t>
CustomCollective::GetAwaitedRanks() const
{
    std::vector<int32_t> ranks;
    for (uint32_t pi : m_posted)
    {
        ranks.push_back(m_trace->nodes[pi].commSrc);
    }
    return ranks;
}

} // namespace astra
} // namespace ns3
