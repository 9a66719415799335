#include "astra-sim-application.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-distributed.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <sstream>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraSimApplication");

NS_OBJECT_ENSURE_REGISTERED(AstraSimApplication);

namespace
{
// the reference feeder's hardware slots (AstraSimApplication::SlotOf)
constexpr uint8_t kSlotCpu = 0;  //!< any node with is_cpu_op
constexpr uint8_t kSlotComp = 1; //!< a GPU COMP
constexpr uint8_t kSlotComm = 2; //!< any other GPU node but a RECV
constexpr uint8_t kNoSlot = 3;   //!< a RECV: never limited
} // namespace

TypeId
AstraSimApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::AstraSimApplication")
            .SetParent<Application>()
            .SetGroupName("AstraSim")
            .AddConstructor<AstraSimApplication>()
            .AddAttribute("ReferenceHwLimits",
                          "ASTRA-sim 2.0's Chakra feeder: one CPU node, one GPU COMP and one "
                          "other GPU node (collective, SEND, memory) at a time, a RECV never "
                          "limited, ready nodes in increasing id order (default: every ready "
                          "node runs at once; --compat=1 implies it)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&AstraSimApplication::m_hwLimits),
                          MakeBooleanChecker())
            .AddAttribute("DropDanglingCtrlDeps",
                          "Ignore control dependencies naming nodes absent from the graph",
                          BooleanValue(false),
                          MakeBooleanAccessor(&AstraSimApplication::m_dropDangling),
                          MakeBooleanChecker())
            .AddAttribute("MaxTimelineEvents",
                          "Timeline entries kept per NPU (bounded report size)",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&AstraSimApplication::m_maxTimeline),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("NodeStart",
                            "A workload node was issued (npu, node id)",
                            MakeTraceSourceAccessor(&AstraSimApplication::m_nodeStart),
                            "ns3::astra::AstraSimApplication::NodeTracedCallback")
            .AddTraceSource("NodeEnd",
                            "A workload node finished (npu, node id)",
                            MakeTraceSourceAccessor(&AstraSimApplication::m_nodeEnd),
                            "ns3::astra::AstraSimApplication::NodeTracedCallback")
            .AddTraceSource("Finished",
                            "All nodes of this NPU finished (npu, time)",
                            MakeTraceSourceAccessor(&AstraSimApplication::m_finishedTrace),
                            "ns3::astra::AstraSimApplication::FinishedTracedCallback");
    return tid;
}

AstraSimApplication::AstraSimApplication() = default;
AstraSimApplication::~AstraSimApplication() = default;

void
AstraSimApplication::DoDispose()
{
    m_ctx = nullptr;
    m_mem = nullptr;
    Application::DoDispose();
}

void
AstraSimApplication::Setup(uint32_t npu,
                           Ptr<SystemContext> ctx,
                           std::shared_ptr<const WorkloadGraph> graph)
{
    m_npu = npu;
    m_ctx = ctx;
    m_graph = graph;
}

void
AstraSimApplication::SetMemoryModel(Ptr<MemoryModel> mem)
{
    m_mem = mem;
}

std::string
AstraSimApplication::ExportResult() const
{
    // the labels of the timeline's nodes (at most one per entry: a node runs once)
    std::vector<TimelineLabel> labels;
    std::vector<uint64_t> ids;
    for (const auto& e : m_timeline)
    {
        const TimelineLabel l = LabelOf(e.nodeId);
        if (l.name)
        {
            labels.push_back(l);
            ids.push_back(e.nodeId);
        }
    }
    std::ostringstream os;
    const NpuStats& s = m_stats;
    os << "npu " << m_npu << " " << (m_finished ? 1 : 0) << " " << s.finish.GetTimeStep() << " "
       << s.compute.GetTimeStep() << " " << s.exposedComm.GetTimeStep() << " "
       << s.memory.GetTimeStep() << " " << s.idle.GetTimeStep() << " " << s.commBusy.GetTimeStep()
       << " " << s.nodes << " " << s.collectives << " " << s.p2p << " " << m_timeline.size() << " "
       << m_error.size() << " " << labels.size() << "\n";
    for (const auto& e : m_timeline)
    {
        os << e.nodeId << " " << int(e.kind) << " " << e.start.GetTimeStep() << " "
           << e.end.GetTimeStep() << "\n";
    }
    // id kind type bytes |name| |group| on a line, then the name and the group's bytes
    for (size_t i = 0; i < labels.size(); ++i)
    {
        const TimelineLabel& l = labels[i];
        const std::string& pg = l.pgName ? *l.pgName : std::string();
        os << ids[i] << " " << int(l.kind) << " " << int(l.collType) << " " << l.commSize << " "
           << l.name->size() << " " << pg.size() << "\n"
           << *l.name << pg << "\n";
    }
    os << m_error;
    return os.str();
}

namespace
{
/// \return whether an integer read from a result is a NodeKind
bool
IsNodeKind(int k)
{
    return k >= int(NodeKind::INVALID) && k <= int(NodeKind::COMM_COLL);
}
} // namespace

void
AstraSimApplication::ImportResult(const std::string& text)
{
    std::istringstream is(text);
    std::string word;
    uint32_t npu = 0;
    int finished = 0;
    int64_t t[6] = {};
    size_t events = 0;
    size_t errLen = 0;
    size_t nLabels = 0;
    NpuStats s;
    is >> word >> npu >> finished >> t[0] >> t[1] >> t[2] >> t[3] >> t[4] >> t[5] >> s.nodes >>
        s.collectives >> s.p2p >> events >> errLen >> nLabels;
    // the counts bound what is allocated (each entry takes at least one byte of the text)
    if (!is || word != "npu" || npu != m_npu || events > text.size() || nLabels > text.size())
    {
        throw std::runtime_error("NPU " + std::to_string(m_npu) +
                                 ": the result received from another rank is malformed");
    }
    s.finish = TimeStep(t[0]);
    s.compute = TimeStep(t[1]);
    s.exposedComm = TimeStep(t[2]);
    s.memory = TimeStep(t[3]);
    s.idle = TimeStep(t[4]);
    s.commBusy = TimeStep(t[5]);
    std::vector<TimelineEvent> tl(events);
    bool ok = true;
    for (auto& e : tl)
    {
        int kind = 0;
        int64_t a = 0;
        int64_t b = 0;
        is >> e.nodeId >> kind >> a >> b;
        ok = ok && IsNodeKind(kind);
        e.kind = static_cast<NodeKind>(kind);
        e.start = TimeStep(a);
        e.end = TimeStep(b);
    }
    std::vector<ImportedLabel> labels(nLabels);
    for (auto& l : labels)
    {
        int kind = 0;
        int coll = 0;
        size_t nameLen = 0;
        size_t pgLen = 0;
        is >> l.id >> kind >> coll >> l.commSize >> nameLen >> pgLen;
        if (!is || !IsNodeKind(kind) || coll < 0 || coll > int(CollType::BARRIER) ||
            nameLen > text.size() || pgLen > text.size())
        {
            ok = false;
            break;
        }
        l.kind = static_cast<NodeKind>(kind);
        l.collType = static_cast<CollType>(coll);
        is.get(); // the newline before the name
        l.name.resize(nameLen);
        l.pgName.resize(pgLen);
        is.read(&l.name[0], std::streamsize(nameLen));
        is.read(&l.pgName[0], std::streamsize(pgLen));
    }
    if (!is || !ok)
    {
        throw std::runtime_error("NPU " + std::to_string(m_npu) +
                                 ": the timeline received from another rank is malformed");
    }
    is.get(); // the newline before the error text
    std::string err(errLen, '\0');
    is.read(&err[0], std::streamsize(errLen));
    if (!is)
    {
        throw std::runtime_error("NPU " + std::to_string(m_npu) +
                                 ": the error text received from another rank is truncated");
    }
    std::sort(labels.begin(), labels.end(), [](const ImportedLabel& a, const ImportedLabel& b) {
        return a.id < b.id;
    });
    m_stats = s;
    m_finished = finished != 0;
    m_timeline = std::move(tl);
    m_labels = std::move(labels);
    m_error = err;
}

Ptr<AstraSimApplication>
AstraSimApplication::FromResult(const std::string& text)
{
    std::istringstream is(text);
    std::string word;
    uint32_t npu = 0;
    is >> word >> npu;
    if (!is || word != "npu")
    {
        throw std::runtime_error("a result received from another rank is malformed");
    }
    Ptr<AstraSimApplication> a = CreateObject<AstraSimApplication>();
    a->m_npu = npu;
    a->ImportResult(text);
    return a;
}

namespace
{
/// \return the label of a node or an imported label (the same field names); empty if null
template <class T>
TimelineLabel
LabelFrom(const T* n)
{
    TimelineLabel l;
    if (n)
    {
        l.name = &n->name;
        l.kind = n->kind;
        l.collType = n->collType;
        l.commSize = n->commSize;
        l.pgName = &n->pgName;
    }
    return l;
}
} // namespace

TimelineLabel
AstraSimApplication::LabelOf(uint64_t nodeId) const
{
    if (m_graph)
    {
        return LabelFrom(m_graph->Find(nodeId));
    }
    auto it = std::lower_bound(m_labels.begin(),
                               m_labels.end(),
                               nodeId,
                               [](const ImportedLabel& a, uint64_t id) { return a.id < id; });
    return LabelFrom(it != m_labels.end() && it->id == nodeId ? &*it : nullptr);
}

uint32_t
AstraSimApplication::GetNpuId() const
{
    return m_npu;
}

bool
AstraSimApplication::IsFinished() const
{
    return m_finished;
}

const NpuStats&
AstraSimApplication::GetStats() const
{
    return m_stats;
}

const std::string&
AstraSimApplication::GetError() const
{
    return m_error;
}

uint64_t
AstraSimApplication::GetPendingNodes() const
{
    return m_remaining;
}

const std::vector<TimelineEvent>&
AstraSimApplication::GetTimeline() const
{
    return m_timeline;
}

std::shared_ptr<const WorkloadGraph>
AstraSimApplication::GetGraph() const
{
    return m_graph;
}

Time
AstraSimApplication::ComputeTime(const WorkloadNode& n, const SystemParams& p)
{
    if (p.compat)
    {
        return NanoSeconds(std::max<int64_t>(0, CompatComputeNs(n, p)));
    }
    return Time::FromDouble(ComputeTimeNs(n, p), Time::NS);
}

double
AstraSimApplication::ComputeTimeNs(const WorkloadNode& n, const SystemParams& p)
{
    if (p.compat)
    {
        return double(std::max<int64_t>(0, CompatComputeNs(n, p)));
    }
    double ns = double(n.GetDurationNs());
    bool roofline = p.rooflineEnabled || (n.GetDurationNs() == 0 && n.hasNumOps);
    if (roofline && n.hasNumOps && p.peakPerfTflops > 0)
    {
        double perf = p.peakPerfTflops * 1e12; // FLOP/s
        if (n.tensorSize > 0 && p.localMemBwGBps > 0)
        {
            perf = std::min(perf, p.localMemBwGBps * 1e9 * double(n.numOps) / double(n.tensorSize));
        }
        ns = perf > 0 ? double(n.numOps) / perf * 1e9 : 0.0;
    }
    ns *= p.computeScale;
    return ns;
}

int64_t
AstraSimApplication::CompatComputeNs(const WorkloadNode& n, const SystemParams& p)
{
    if (!p.rooflineEnabled || n.isCpuOp)
    {
        // replay; the reference never lets a node take no time
        const uint64_t d = n.GetDurationNs();
        constexpr uint64_t kMax = uint64_t(std::numeric_limits<int64_t>::max());
        return d == 0 ? 1 : static_cast<int64_t>(std::min(d, kMax));
    }
    if (n.tensorSize == 0)
    {
        return -1; // the reference skips it like an INVALID node
    }
    // the reference's roofline, in its order of operations (the last bit matters to the
    // truncation): intensity first, then min(bandwidth x intensity, peak), seconds, ns
    const double intensity = double(n.numOps) / double(n.tensorSize);
    const double perf = std::min(p.localMemBwGBps * 1e9 * intensity, p.peakPerfTflops * 1e12);
    if (!(perf > 0))
    {
        return 0;
    }
    const double seconds = double(n.numOps) / perf;
    const double ns = seconds * 1e9;
    // beyond int64 (the workload check rejects it, as beyond limits::kMaxTimeNs)
    return ns < 9e18 ? static_cast<int64_t>(ns) : std::numeric_limits<int64_t>::max();
}

bool
AstraSimApplication::IsComm(NodeKind k) const
{
    return k == NodeKind::COMM_COLL || k == NodeKind::COMM_SEND || k == NodeKind::COMM_RECV;
}

void
AstraSimApplication::Fail(const std::string& what)
{
    if (m_error.empty())
    {
        m_error = what;
    }
    NS_LOG_ERROR("NPU " << m_npu << ": " << what);
    if (Distributed::GetSize() > 1)
    {
        // the other ranks would wait for this one: stop them all, with the message
        std::cerr << "error: NPU " << m_npu << " (rank " << Distributed::GetRank() << "): " << what
                  << std::endl;
        Distributed::Abort(1);
    }
    Simulator::Stop();
}

void
AstraSimApplication::StartApplication()
{
    if (m_started0)
    {
        return;
    }
    m_started0 = true;
    m_last = Simulator::Now();
    if (!m_graph || !m_ctx)
    {
        Fail("AstraSimApplication started without a workload or system context");
        return;
    }
    if (!m_mem)
    {
        Ptr<LocalMemoryModel> lm = CreateObject<LocalMemoryModel>();
        lm->SetAttribute("Bandwidth", DoubleValue(m_ctx->GetParams().localMemBwGBps));
        m_mem = lm;
    }
    const auto& nodes = m_graph->nodes;
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    m_started.assign(n, Time(0));
    m_running.assign(n, 0);
    DependencyTable deps = DependencyTable::Build(*m_graph);
    uint64_t dropped = 0;
    for (const auto& d : deps.dangling)
    {
        if (d.ctrl && m_dropDangling)
        {
            ++dropped;
            continue;
        }
        Fail(m_graph->file + ": node " + std::to_string(nodes[d.node].id) + " depends on " +
             std::to_string(d.dep) + " which is not in the file" +
             (d.ctrl ? " (use --drop-dangling-ctrl-deps to ignore)" : ""));
        return;
    }
    if (dropped > 0)
    {
        ASTRA_WARN("dangling-dependencies-dropped",
                   m_graph->file << ": dropped " << dropped
                                 << " control dependencies naming ids that are not in the file");
    }
    m_deps = std::move(deps.pending);
    m_childStart = std::move(deps.childStart);
    m_children = std::move(deps.children);
    m_remaining = n;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (m_deps[i] == 0)
        {
            m_ready.push_back(i);
        }
    }
    if (n == 0)
    {
        m_finished = true;
        m_stats.finish = Simulator::Now();
        m_finishedTrace(m_npu, m_stats.finish);
        return;
    }
    if (m_ready.empty())
    {
        Fail(m_graph->file + ": no node is ready at start (dependency cycle)");
        return;
    }
    Issue();
}

void
AstraSimApplication::StopApplication()
{
}

void
AstraSimApplication::Account()
{
    Time now = Simulator::Now();
    Time dt = now - m_last;
    m_last = now;
    if (dt.IsZero())
    {
        return;
    }
    if (m_activeComm > 0)
    {
        m_stats.commBusy += dt;
    }
    // compat: the reference's exposed communication is the finish time minus the sum of
    // its GPU COMP times (CPU nodes are not subtracted); GPU COMPs never overlap there
    const uint32_t comp = m_ctx->GetParams().compat ? m_activeComp - m_activeCpuComp : m_activeComp;
    if (comp > 0)
    {
        m_stats.compute += dt;
    }
    else if (m_activeComm > 0)
    {
        m_stats.exposedComm += dt;
    }
    else if (m_activeMem > 0)
    {
        m_stats.memory += dt;
    }
    else
    {
        m_stats.idle += dt;
    }
}

void
AstraSimApplication::Issue()
{
    if (m_hwLimits || m_ctx->GetParams().compat)
    {
        IssueReference();
        return;
    }
    std::vector<uint32_t> now;
    now.swap(m_ready);
    for (uint32_t idx : now)
    {
        Execute(idx);
        if (!m_error.empty())
        {
            return;
        }
    }
}

uint8_t
AstraSimApplication::SlotOf(const WorkloadNode& n) const
{
    // ASTRA-sim 2.0's HardwareResource: one CPU node, one GPU COMP and one GPU node of any
    // other kind at a time (collective, SEND, memory, metadata); a RECV holds nothing
    if (n.isCpuOp)
    {
        return kSlotCpu;
    }
    if (n.kind == NodeKind::COMP)
    {
        return kSlotComp;
    }
    return n.kind == NodeKind::COMM_RECV ? kNoSlot : kSlotComm;
}

void
AstraSimApplication::IssueReference()
{
    const bool compat = m_ctx->GetParams().compat;
    const auto& nodes = m_graph->nodes;
    while (true)
    {
        // the reference walks its dependency-free set in increasing node id order and issues
        // every node whose slot is free; nodes freed during the walk wait for the next one
        std::vector<uint32_t> pass;
        pass.swap(m_ready);
        std::sort(pass.begin(), pass.end(), [&nodes](uint32_t a, uint32_t b) {
            return nodes[a].id < nodes[b].id;
        });
        std::vector<uint32_t> keep;
        for (uint32_t idx : pass)
        {
            const uint8_t slot = SlotOf(nodes[idx]);
            if (slot != kNoSlot && m_slotBusy[slot])
            {
                keep.push_back(idx);
                continue;
            }
            if (slot != kNoSlot)
            {
                m_slotBusy[slot] = 1;
            }
            Execute(idx);
            if (!m_error.empty())
            {
                return;
            }
        }
        m_ready.insert(m_ready.end(), keep.begin(), keep.end());
        if (!compat || m_inFlight > 0 || m_ready.empty() || m_finished)
        {
            return;
        }
        // Nothing runs and nodes are ready: they were freed by nodes the reference finishes
        // without an event (INVALID, METADATA, roofline COMP without tensor_size), after
        // which it walks its set no more; it would never finish. Walk again instead.
        ASTRA_WARN("compat-feeder-stall",
                   "NPU " << m_npu << ": " << m_ready.size()
                          << " node(s) became ready only through nodes that finish without "
                             "an event (INVALID, METADATA, a roofline COMP without "
                             "tensor_size); ASTRA-sim 2.0 would never issue them (its NPU "
                             "never finishes); issuing them");
    }
}

void
AstraSimApplication::Execute(uint32_t idx)
{
    const WorkloadNode& n = m_graph->nodes[idx];
    const SystemParams& p = m_ctx->GetParams();
    Account();
    m_started[idx] = Simulator::Now();
    m_running[idx] = 1;
    m_inFlight++;
    m_nodeStart(m_npu, n.id);
    NS_LOG_LOGIC("t=" << Simulator::Now().GetNanoSeconds() << " NPU " << m_npu << " issues "
                      << NodeKindName(n.kind) << " node " << n.id << " '" << n.name << "'");
    Ptr<AstraSimApplication> self = this;
    auto done = [self, idx]() { self->NodeDone(idx); };
    try
    {
        switch (n.kind)
        {
        case NodeKind::COMP:
            m_activeComp++;
            m_activeCpuComp += n.isCpuOp ? 1 : 0;
            if (p.compat)
            {
                const int64_t ns = CompatComputeNs(n, p);
                if (ns < 0)
                {
                    NodeDone(idx, false); // the reference finishes it at once, no new pass
                    break;
                }
                EventBatcher::Schedule(NanoSeconds(ns), done);
                break;
            }
            EventBatcher::Schedule(ComputeTime(n, p), done);
            break;
        case NodeKind::MEM_LOAD:
        case NodeKind::MEM_STORE:
            m_activeMem++;
            m_mem->Access(m_npu, n.tensorSize, n.kind == NodeKind::MEM_STORE, done);
            break;
        case NodeKind::COMM_COLL: {
            m_activeComm++;
            m_stats.collectives++;
            if (p.compat && n.collType == CollType::BROADCAST)
            {
                // ASTRA-sim 2.0 does not simulate BROADCAST: it replays the node's duration
                // (1 ns when that is 0)
                ASTRA_WARN("compat-broadcast-replayed",
                           "compat: BROADCAST node " << n.id << " '" << n.name
                                                     << "' replays its duration like ASTRA-sim "
                                                        "2.0 (no network traffic)");
                const uint64_t d = n.GetDurationNs();
                EventBatcher::Schedule(NanoSeconds(d == 0 ? 1 : int64_t(d)), done);
                break;
            }
            CollectiveRequest req;
            req.type = n.collType;
            req.bytes = n.commSize;
            req.group = n.pgName;
            req.involvedDim = n.involvedDim;
            req.priority = n.commPriority;
            req.name = n.name;
            req.inSwitch = n.inSwitch;
            // the root of a rooted collective: comm_dst for REDUCE / GATHER (where the data
            // goes), comm_src for BROADCAST / SCATTER (where it comes from), the other one
            // when only that is given
            if (n.collType == CollType::REDUCE || n.collType == CollType::GATHER)
            {
                req.root = n.commDst >= 0 ? n.commDst : n.commSrc;
            }
            else if (n.collType == CollType::BROADCAST || n.collType == CollType::SCATTER)
            {
                req.root = n.commSrc >= 0 ? n.commSrc : n.commDst;
            }
            m_ctx->GetSystem(m_npu)->IssueCollective(req, done);
            break;
        }
        case NodeKind::COMM_SEND:
            m_activeComm++;
            m_stats.p2p++;
            if (n.commDst < 0)
            {
                throw std::runtime_error("SEND node without comm_dst");
            }
            m_ctx->GetSystem(m_npu)->SendP2P(static_cast<uint32_t>(n.commDst),
                                             n.commSize,
                                             n.commTag,
                                             done);
            break;
        case NodeKind::COMM_RECV:
            m_activeComm++;
            m_stats.p2p++;
            if (n.commSrc < 0 || uint32_t(n.commSrc) >= m_ctx->GetNpuCount())
            {
                throw std::runtime_error("RECV node with comm_src " + std::to_string(n.commSrc) +
                                         " outside 0.." + std::to_string(m_ctx->GetNpuCount() - 1));
            }
            m_ctx->GetSystem(m_npu)->RecvP2P(static_cast<uint32_t>(n.commSrc),
                                             n.commSize,
                                             n.commTag,
                                             done);
            break;
        default: // METADATA, INVALID: no-op
            if (p.compat)
            {
                NodeDone(idx, false); // the reference finishes it at once, no new pass
                break;
            }
            EventBatcher::Schedule(Time(0), done);
            break;
        }
    }
    catch (const std::exception& e)
    {
        Fail((m_graph->file.empty() ? std::string("workload") : m_graph->file) + ": node " +
             std::to_string(n.id) + " '" + n.name + "' (" + NodeKindName(n.kind) +
             "): " + e.what());
    }
}

void
AstraSimApplication::NodeDone(uint32_t idx, bool issue)
{
    const WorkloadNode& n = m_graph->nodes[idx];
    Account();
    m_inFlight--;
    const uint8_t slot = SlotOf(n);
    if (slot != kNoSlot)
    {
        m_slotBusy[slot] = 0;
    }
    switch (n.kind)
    {
    case NodeKind::COMP:
        m_activeComp--;
        m_activeCpuComp -= n.isCpuOp ? 1 : 0;
        break;
    case NodeKind::MEM_LOAD:
    case NodeKind::MEM_STORE:
        m_activeMem--;
        break;
    case NodeKind::COMM_COLL:
    case NodeKind::COMM_SEND:
    case NodeKind::COMM_RECV:
        m_activeComm--;
        break;
    default:
        break;
    }
    m_running[idx] = 0;
    m_stats.nodes++;
    if (m_timeline.size() < m_maxTimeline && n.kind != NodeKind::METADATA)
    {
        m_timeline.push_back({n.id, n.kind, m_started[idx], Simulator::Now()});
    }
    m_nodeEnd(m_npu, n.id);
    m_remaining--;
    for (uint32_t c = m_childStart[idx]; c < m_childStart[idx + 1]; ++c)
    {
        uint32_t ch = m_children[c];
        if (--m_deps[ch] == 0)
        {
            m_ready.push_back(ch);
        }
    }
    if (m_remaining == 0)
    {
        m_finished = true;
        m_stats.finish = Simulator::Now();
        NS_LOG_INFO("NPU " << m_npu << " finished at " << m_stats.finish.GetNanoSeconds());
        m_finishedTrace(m_npu, m_stats.finish);
        return;
    }
    if (issue && !m_ready.empty())
    {
        Issue();
    }
}

std::string
AstraSimApplication::DescribePending() const
{
    std::ostringstream os;
    os << "  NPU " << m_npu << ": " << m_remaining << " of "
       << (m_graph ? m_graph->nodes.size() : 0) << " nodes unfinished";
    if (m_graph)
    {
        int shown = 0;
        for (size_t i = 0; i < m_running.size() && shown < 8; ++i)
        {
            if (m_running[i])
            {
                const auto& n = m_graph->nodes[i];
                os << (shown ? ", " : "; running: ") << NodeKindName(n.kind) << " node " << n.id
                   << " '" << n.name << "'";
                if (n.kind == NodeKind::COMM_RECV)
                {
                    os << " (from NPU " << n.commSrc << " tag " << n.commTag << ")";
                }
                else if (n.kind == NodeKind::COMM_SEND)
                {
                    os << " (to NPU " << n.commDst << " tag " << n.commTag << ")";
                }
                ++shown;
            }
        }
    }
    os << "\n";
    if (m_ctx)
    {
        os << m_ctx->GetSystem(m_npu)->DescribePending();
    }
    return os.str();
}

} // namespace astra
} // namespace ns3
