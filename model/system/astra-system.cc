#include "astra-system.h"

#include "collective-protocol.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-distributed.h"
#include "ns3/astra-limits.h"
#include "ns3/boolean.h"
#include "ns3/event-batcher.h"
#include "ns3/in-switch-network.h"
#include "ns3/log.h"
#include "ns3/node-order.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraSystem");

NS_OBJECT_ENSURE_REGISTERED(SystemContext);
NS_OBJECT_ENSURE_REGISTERED(AstraSystem);

namespace
{
constexpr uint32_t kCollBits = 24;
constexpr uint32_t kChunkBits = 10;
constexpr uint32_t kPhaseBits = 4;
constexpr uint32_t kStepBits = 26;
constexpr uint64_t kStepMask = (uint64_t(1) << kStepBits) - 1;
constexpr uint32_t kMaxChunks = 1u << kChunkBits;
constexpr uint32_t kMaxPhases = 1u << kPhaseBits;

/// FNV-1a: a collective's key, the same on every rank
uint64_t
KeyHash(const std::string& key)
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : key)
    {
        h = (h ^ c) * 1099511628211ull;
    }
    return h ? h : 1;
}

/// The system parameters a run can honour (set from files, options or C++): InputError if not.
void
CheckSystemParams(const SystemParams& p)
{
    auto bad = [](const std::string& what) { throw InputError("system parameters: " + what); };
    auto text = [](double x) {
        std::ostringstream os;
        os << x;
        return os.str();
    };
    static_assert(limits::kMaxSplits <= kMaxChunks, "the splits limit fits the tag's chunk field");
    if (p.splits < 1 || p.splits > limits::kMaxSplits)
    {
        bad("preferred-dataset-splits " + std::to_string(p.splits) + ": expected 1 to " +
            std::to_string(limits::kMaxSplits));
    }
    if (p.activeChunks < 1 || p.activeChunks > limits::kMaxActiveChunks)
    {
        bad("active-chunks-per-dimension " + std::to_string(p.activeChunks) + ": expected 1 to " +
            std::to_string(limits::kMaxActiveChunks));
    }
    if (p.queuesPerDim < 1 || p.queuesPerDim > limits::kMaxQueuesPerDim)
    {
        bad("num-queues-per-dim " + std::to_string(p.queuesPerDim) + ": expected 1 to " +
            std::to_string(limits::kMaxQueuesPerDim));
    }
    if (!(p.commScale > 0) || p.commScale > 1e6)
    {
        bad("comm-scale " + text(p.commScale) + ": expected > 0 and at most 1e6");
    }
    if (!(p.computeScale >= 0) || p.computeScale > 1e6)
    {
        bad("compute-scale " + text(p.computeScale) + ": expected 0 to 1e6");
    }
    if (!(p.injectionScale >= 0) || p.injectionScale > 1e6)
    {
        bad("injection-scale " + text(p.injectionScale) + ": expected 0 to 1e6");
    }
    if (!(p.endpointDelayNs >= 0) || p.endpointDelayNs > limits::kMaxTimeNs)
    {
        bad("endpoint-delay " + text(p.endpointDelayNs) + " ns: expected 0 to 1e12");
    }
    if (!(p.localMemBwGBps >= 0) || p.localMemBwGBps > limits::kMaxBandwidthGBps)
    {
        bad("local-mem-bw " + text(p.localMemBwGBps) + " GB/s: expected 0 (no cost) to 1e6");
    }
    if (!(p.peakPerfTflops >= 0) || p.peakPerfTflops > limits::kMaxPeakPerfTflops)
    {
        bad("peak-perf " + text(p.peakPerfTflops) + " TFLOPS: expected 0 to 1e6");
    }
    if (!(p.gateLatencyNs >= 0) || p.gateLatencyNs > limits::kMaxTimeNs)
    {
        bad("collective-gate-latency-ns " + text(p.gateLatencyNs) + ": expected 0 to 1e12");
    }
}

void
DecodeTag(uint64_t tag, uint32_t& coll, uint32_t& chunk, uint32_t& phase, uint32_t& step)
{
    step = static_cast<uint32_t>(tag & kStepMask);
    phase = static_cast<uint32_t>((tag >> kStepBits) & ((1u << kPhaseBits) - 1));
    chunk = static_cast<uint32_t>((tag >> (kStepBits + kPhaseBits)) & ((1u << kChunkBits) - 1));
    coll = static_cast<uint32_t>(tag >> (kStepBits + kPhaseBits + kChunkBits));
}

/**
 * \return Time::FromDouble(ns, Time::NS) without the 128-bit conversion when the
 * resolution is ns: the int64x64 value of a double is exact and Time rounds it half
 * away from zero, which is std::round. Other resolutions take the general path.
 */
Time
NsToTime(double ns)
{
    if (Time::GetResolution() == Time::NS && ns >= 0 && ns < 9.0e15)
    {
        return NanoSeconds(static_cast<int64_t>(std::round(ns)));
    }
    return Time::FromDouble(ns, Time::NS);
}

} // namespace

// ---------------------------------------------------------------- SystemContext

TypeId
SystemContext::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::SystemContext")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddConstructor<SystemContext>()
            .AddAttribute("EventBatching",
                          "Coalesce same-time events into one ns-3 event (EventBatcher) "
                          "when the backend supports it (analytical). Results and their "
                          "order are unchanged; only ns-3's event count drops.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SystemContext::m_batching),
                          MakeBooleanChecker())
            .AddAttribute("FixedTimeShortcuts",
                          "With a backend whose message times are fixed at send (analytical): "
                          "sends complete by their known time instead of a notification, and "
                          "a ring step's arrival and its processing are one event (from a "
                          "phase's second step on). Message times are unchanged; only the "
                          "order of equal-time events can differ. Off: two backend events "
                          "per message as with other backends.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SystemContext::m_useFixedTimes),
                          MakeBooleanChecker())
            .AddTraceSource("MessageSent",
                            "A message was handed to the network backend",
                            MakeTraceSourceAccessor(&SystemContext::m_sentTrace),
                            "ns3::astra::SystemContext::MessageTracedCallback");
    return tid;
}

SystemContext::SystemContext() = default;
SystemContext::~SystemContext() = default;

void
SystemContext::DoDispose()
{
    for (auto& s : m_systems)
    {
        if (s)
        {
            s->Dispose();
        }
    }
    m_systems.clear();
    m_backend = nullptr;
    m_fixed = nullptr;
    m_inSwitch = nullptr;
    if (m_noticeHandler)
    {
        Distributed::SetNoticeHandler(nullptr, nullptr);
        m_noticeHandler = false;
    }
    if (m_batcherOwner)
    {
        EventBatcher::Reset();
        m_batcherOwner = false;
    }
    Object::DoDispose();
}

void
SystemContext::Setup(Ptr<NetworkBackend> backend,
                     const std::vector<DimensionSpec>& dims,
                     const SystemParams& params)
{
    m_backend = backend;
    m_dims = dims;
    m_params = params;
    m_fixed = m_useFixedTimes && backend ? backend->GetFixedTimeInterface() : nullptr;
    for (auto& row : m_pd)
    {
        for (auto& e : row)
        {
            e = PdMemo{}; // the parameters may have changed
        }
    }
    if (m_batching && backend && backend->SupportsEventBatching())
    {
        EventBatcher::Reset();
        EventBatcher::SetEnabled(true);
        m_batcherOwner = true;
    }
    CheckSystemParams(m_params);
    m_planner.Setup(m_dims, m_params);
    m_inSwitch = backend ? backend->GetInSwitchInterface() : nullptr;
    m_planner.SetInSwitchAvailable(m_inSwitch != nullptr);
    // the in-switch algorithm runs only where the switches aggregate and the backend has a
    // model of it: anything else is a configuration error, not a silent substitution
    const std::pair<const char*, const std::vector<AlgoSpec>*> lists[] = {
        {"all-reduce-implementation", &m_params.allReduce},
        {"reduce-scatter-implementation", &m_params.reduceScatter},
        {"all-gather-implementation", &m_params.allGather},
        {"all-to-all-implementation", &m_params.allToAll}};
    for (const auto& l : lists)
    {
        for (size_t i = 0; i < l.second->size(); ++i)
        {
            if ((*l.second)[i].kind != AlgoKind::IN_SWITCH)
            {
                continue;
            }
            const std::string entry =
                std::string(l.first) + " entry " + std::to_string(i) + " (inSwitch): ";
            if (l.second == &m_params.allToAll)
            {
                throw InputError(entry + "the switches do not run ALL_TO_ALL (in-switch runs "
                                         "all-reduce, reduce-scatter, all-gather, reduce and "
                                         "broadcast)");
            }
            if (!m_inSwitch)
            {
                throw InputError(entry + "the " + (backend ? backend->GetName() : "missing") +
                                 " backend has no in-switch model attached (no dimension of "
                                 "the network configuration is marked in_switch: 1, or the "
                                 "backend's mode has none: the flow backend's store-and-forward "
                                 "compat mode)");
            }
            // the entry applies to dimension i, and the last entry to every later one
            const size_t last = i + 1 == l.second->size() ? m_dims.size() : i + 1;
            for (size_t d = i; d < last && d < m_dims.size(); ++d)
            {
                std::string why;
                if (m_dims[d].npus > 1 && !m_inSwitch->CanAggregate(uint32_t(d), &why))
                {
                    throw InputError(entry + why);
                }
            }
        }
    }
    // the collective protocol's costs (default model only)
    const ProtocolCosts& pc = GetProtocolCosts(m_params.protocol);
    const bool costs = !m_params.compat;
    if (m_params.compat &&
        (m_params.protocol != CollProtocol::NONE || !m_params.stepLatencyNs.empty() ||
         m_params.launchLatencyNs > 0 || m_params.reductionFused || m_params.gateLatencyNs > 0))
    {
        ASTRA_WARN("compat-protocol-model",
                   "collective-protocol, collective-step-latency-ns, "
                   "collective-launch-latency-ns, reduction-fused and "
                   "collective-gate-latency-ns are not part of ASTRA-sim 2.0: compat "
                   "(--compat=1) does not apply them");
    }
    if (!m_params.stepLatencyNs.empty() && m_params.stepLatencyNs.size() != m_dims.size())
    {
        throw InputError("collective-step-latency-ns lists " +
                         std::to_string(m_params.stepLatencyNs.size()) +
                         " values for a network of " + std::to_string(m_dims.size()) +
                         " dimension(s); give one per dimension");
    }
    m_stepLat.assign(m_dims.size() + 1, 0);
    double flatNs = 0;
    for (size_t d = 0; d < m_dims.size() && costs; ++d)
    {
        const DimType t = m_dims[d].type;
        const bool nvlink =
            t == DimType::RING || t == DimType::FULLY_CONNECTED || t == DimType::SWITCH;
        const double ns = m_params.stepLatencyNs.empty() ? (nvlink ? pc.nvlinkStepNs : pc.netStepNs)
                                                         : m_params.stepLatencyNs[d];
        m_stepLat[d + 1] = NanoSeconds(static_cast<int64_t>(std::llround(ns))).GetTimeStep();
        flatNs = std::max(flatNs, ns);
    }
    m_stepLat[0] = NanoSeconds(static_cast<int64_t>(std::llround(flatNs))).GetTimeStep();
    m_wireFactor = costs ? pc.wireFactor : 1.0;
    const double launch = m_params.launchLatencyNs >= 0 ? m_params.launchLatencyNs : pc.launchNs;
    m_launchSteps =
        costs ? NanoSeconds(static_cast<int64_t>(std::llround(launch))).GetTimeStep() : 0;
    // compat has no slot gate (a chunk takes its slot when this NPU reaches it)
    m_gateSteps =
        costs
            ? NanoSeconds(static_cast<int64_t>(std::llround(m_params.gateLatencyNs))).GetTimeStep()
            : 0;
    // a collective's gate joins NPUs of different nodes after this latency (at once when
    // it is 0, and in compat): the window simulator's look-ahead must not exceed it
    EventOrder::LimitLookahead(
        static_cast<uint64_t>(m_gateSteps),
        "collective-gate-latency-ns (" + std::to_string(TimeStep(m_gateSteps).GetNanoSeconds()) +
            " ns; a collective's slot gate joins NPUs of other nodes; training-on-roce and "
            "roce-bench: --gate-latency-ns; compat runs have no gate latency)");
    const uint32_t n = m_planner.GetNpuCount();
    if (backend && backend->GetNpuCount() != n)
    {
        throw std::runtime_error("network backend connects " +
                                 std::to_string(backend->GetNpuCount()) +
                                 " NPUs but the dimensions describe " + std::to_string(n));
    }
    auto world = std::make_shared<std::vector<uint32_t>>(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        (*world)[i] = i;
    }
    m_world = world;
    m_systems.clear();
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<AstraSystem> s = CreateObject<AstraSystem>();
        s->Setup(this, i);
        m_systems.push_back(s);
    }
}

void
SystemContext::SetCommGroups(const std::map<std::string, std::vector<uint32_t>>& groups)
{
    for (const auto& g : groups)
    {
        AddCommGroup(g.first, g.second);
    }
}

void
SystemContext::AddCommGroup(const std::string& name, const std::vector<uint32_t>& members)
{
    auto v = std::make_shared<std::vector<uint32_t>>(members);
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
    for (uint32_t m : *v)
    {
        if (m >= GetNpuCount())
        {
            throw std::runtime_error("communicator group '" + name + "' names NPU " +
                                     std::to_string(m) + " but there are only " +
                                     std::to_string(GetNpuCount()) + " NPUs");
        }
    }
    if (v->empty())
    {
        throw std::runtime_error("communicator group '" + name + "' is empty");
    }
    m_groups[name] = v;
}

bool
SystemContext::HasCommGroup(const std::string& name) const
{
    return m_groups.count(name) != 0;
}

std::shared_ptr<const std::vector<uint32_t>>
SystemContext::ResolveGroup(const std::string& name, std::string* canonical) const
{
    auto it = m_groups.find(name);
    if (it != m_groups.end())
    {
        if (canonical)
        {
            *canonical = name;
        }
        return it->second;
    }
    auto alias = m_groupAliases.find(name);
    if (alias != m_groupAliases.end())
    {
        if (canonical)
        {
            *canonical = alias->second;
        }
        return alias->second.empty() ? m_world : m_groups.at(alias->second);
    }
    if (name.empty())
    {
        if (canonical)
        {
            canonical->clear();
        }
        return m_world;
    }
    // ASTRA-sim reads a pg_name with std::stoi: blanks, a sign, digits; the rest is ignored
    long long id = 0;
    bool integer = false;
    {
        size_t i = name.find_first_not_of(" \t\n\r\f\v");
        const bool neg = i != std::string::npos && name[i] == '-';
        if (i != std::string::npos && (name[i] == '-' || name[i] == '+'))
        {
            ++i;
        }
        size_t digits = 0;
        while (i != std::string::npos && i < name.size() &&
               std::isdigit(static_cast<unsigned char>(name[i])) && digits < 10)
        {
            id = id * 10 + (name[i] - '0');
            ++i;
            ++digits;
        }
        const bool more = i != std::string::npos && i < name.size() &&
                          std::isdigit(static_cast<unsigned char>(name[i]));
        integer = digits > 0 && !more && id <= 2147483647LL;
        id = neg ? -id : id;
    }
    if (integer)
    {
        const std::string decimal = std::to_string(id);
        auto byId = m_groups.find(decimal);
        if (byId != m_groups.end() || id == 0)
        {
            const std::string target = byId != m_groups.end() ? decimal : std::string();
            m_groupAliases[name] = target;
            ASTRA_WARN("pg-name-read-as-integer:" + name,
                       "pg_name '" << name << "' names "
                                   << (target.empty() ? std::string("all NPUs")
                                                      : "communicator group " + decimal)
                                   << ": it is read as an integer, as ASTRA-sim reads it");
            if (canonical)
            {
                *canonical = target;
            }
            return target.empty() ? m_world : byId->second;
        }
    }
    std::ostringstream os;
    os << "unknown communicator group '" << name << "' (known:";
    for (const auto& g : m_groups)
    {
        os << " '" << g.first << "'";
    }
    os << "; pass --comm-group-configuration or declare it in a METADATA node)";
    throw std::runtime_error(os.str());
}

std::vector<std::string>
SystemContext::GetCommGroupNames() const
{
    std::vector<std::string> names;
    for (const auto& g : m_groups)
    {
        names.push_back(g.first);
    }
    return names;
}

Ptr<AstraSystem>
SystemContext::GetSystem(uint32_t npu) const
{
    return m_systems.at(npu);
}

uint32_t
SystemContext::GetNpuCount() const
{
    return static_cast<uint32_t>(m_world ? m_world->size() : 0);
}

const SystemParams&
SystemContext::GetParams() const
{
    return m_params;
}

const std::vector<DimensionSpec>&
SystemContext::GetDims() const
{
    return m_dims;
}

Ptr<NetworkBackend>
SystemContext::GetBackend() const
{
    return m_backend;
}

uint32_t
SystemContext::Coord(uint32_t npu, uint32_t dim) const
{
    return m_planner.Coord(npu, dim);
}

uint32_t
SystemContext::WithCoord(uint32_t npu, uint32_t dim, uint32_t c) const
{
    return m_planner.WithCoord(npu, dim, c);
}

const CollectivePlanner&
SystemContext::GetPlanner() const
{
    return m_planner;
}

const std::vector<CollectiveRecord>&
SystemContext::GetRecords() const
{
    return m_records;
}

uint32_t
SystemContext::RegisterCollective(const std::string& key, bool& created)
{
    auto it = m_collIds.find(key);
    if (it != m_collIds.end())
    {
        created = false;
        return it->second;
    }
    created = true;
    uint64_t h = 0;
    if (m_distributed)
    {
        // a collective first met in a message from another rank already has its number
        h = KeyHash(key);
        auto k = m_idByKey.find(h);
        if (k != m_idByKey.end())
        {
            m_collIds.emplace(key, k->second);
            return k->second;
        }
    }
    uint32_t id = static_cast<uint32_t>(m_records.size());
    if (id >= (1u << kCollBits))
    {
        throw std::runtime_error("too many collectives (limit 2^24)");
    }
    m_collIds.emplace(key, id);
    m_records.emplace_back();
    if (m_distributed)
    {
        m_records.back().key = h;
        m_idByKey.emplace(h, id);
    }
    return id;
}

void
SystemContext::SetLocalNpus(const std::vector<bool>& local)
{
    m_local = local;
    m_distributed = true;
    // a rank holds the system layer of its own NPUs only: nothing here can reach the state
    // of an NPU of another rank (what crosses ranks is carried by frames and notices)
    for (size_t i = 0; i < m_systems.size(); ++i)
    {
        if ((i >= local.size() || !local[i]) && m_systems[i])
        {
            m_systems[i]->Dispose();
            m_systems[i] = nullptr;
        }
    }
}

void
SystemContext::SetNpuRanks(const std::vector<uint32_t>& ranks, uint32_t me)
{
    std::vector<bool> local(ranks.size());
    for (size_t i = 0; i < ranks.size(); ++i)
    {
        local[i] = ranks[i] == me;
    }
    SetLocalNpus(local);
    m_npuRank = ranks;
    m_rank = me;
    if (m_gateSteps > 0)
    {
        Distributed::SetNoticeHandler(&SystemContext::RemoteGateNotice, this);
        m_noticeHandler = true;
    }
}

std::vector<uint32_t>
SystemContext::RanksOf(const std::vector<uint32_t>& npus) const
{
    std::vector<uint32_t> ranks;
    for (uint32_t npu : npus)
    {
        const uint32_t r = npu < m_npuRank.size() ? m_npuRank[npu] : m_rank;
        if (r != m_rank)
        {
            ranks.push_back(r);
        }
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
}

void
SystemContext::WarnRemoteGate()
{
    if (m_warnedGate || m_gateSteps > 0)
    {
        return;
    }
    m_warnedGate = true;
    ASTRA_WARN("distributed-slot-gate",
               "collectives with members on other ranks contend for slots: without a gate "
               "latency a rank's slot gate counts those members as issued, so this run can "
               "differ from one process by nanoseconds; set collective-gate-latency-ns to at "
               "least the smallest delay of a link crossing ranks for identical results "
               "(doc/distributed.rst)");
}

uint32_t
SystemContext::IdOfKey(uint64_t key)
{
    auto it = m_idByKey.find(key);
    if (it != m_idByKey.end())
    {
        return it->second;
    }
    // no local member has issued it yet: number it now (its data waits, unclaimed)
    const uint32_t id = static_cast<uint32_t>(m_records.size());
    if (id >= (1u << kCollBits))
    {
        throw std::runtime_error("too many collectives (limit 2^24)");
    }
    m_records.emplace_back();
    m_records.back().key = key;
    m_idByKey.emplace(key, id);
    return id;
}

void
SystemContext::PostGateNotice(uint32_t id)
{
    CollectiveRecord& rec = m_records[id];
    // one tie-break for every copy of the notice: the same place among same-time events
    // on every rank (node event order)
    const uint64_t tie = EventOrder::Reserve();
    const Time d = TimeStep(m_gateSteps);
    if (!rec.otherRanks.empty())
    {
        const Time at = Simulator::Now() + d;
        for (uint32_t r : rec.otherRanks)
        {
            Distributed::PostNotice(r, at, tie, Simulator::GetContext(), rec.key);
        }
    }
    EventOrder::SetNext(tie);
    // the notice counts towards a gate shared by NPUs of other nodes: under the window
    // simulator it runs at a window's end, merged with every group's events of its time
    EventOrder::MarkSync();
    Simulator::Schedule(d, &SystemContext::GateNoticeEvent, this, id);
}

void
SystemContext::GateNoticeEvent(SystemContext* ctx, uint32_t id)
{
    ctx->GateNotice(id);
}

void
SystemContext::RemoteGateNotice(void* obj, uint64_t key)
{
    auto* ctx = static_cast<SystemContext*>(obj);
    ctx->GateNotice(ctx->IdOfKey(key));
}

void
SystemContext::GateNotice(uint32_t id)
{
    CollectiveRecord& rec = m_records[id];
    rec.noticed++;
    if (rec.members == 0 || rec.noticed != rec.members)
    {
        return;
    }
    // the gate opens: every local member offers its slots again, in an event of its own
    // context whose tie-break comes from that member's node (the same on every partition)
    for (uint32_t npu : rec.issuers)
    {
        AstraSystem* sys = PeekPointer(m_systems[npu]);
        const uint32_t where = sys->GetIssueContext();
        EventOrder::SetNext(EventOrder::ReserveFor(where));
        Simulator::ScheduleWithContext(where, Time(0), &AstraSystem::PumpAll, sys);
    }
}

bool
SystemContext::IsDistributed() const
{
    return m_distributed;
}

bool
SystemContext::IsLocalNpu(uint32_t npu) const
{
    return !m_distributed || (npu < m_local.size() && m_local[npu]);
}

uint64_t
SystemContext::ExportKey(const NetMessage& msg)
{
    if (msg.tclass == TrafficClass::POINT_TO_POINT)
    {
        return 0; // SEND/RECV tags are the workload's own
    }
    const uint32_t coll = static_cast<uint32_t>(msg.tag >> (kStepBits + kPhaseBits + kChunkBits));
    return coll < m_records.size() ? m_records[coll].key : 0;
}

void
SystemContext::ImportKey(NetMessage& msg, uint64_t key)
{
    if (key == 0)
    {
        return;
    }
    const uint32_t id = IdOfKey(key);
    constexpr uint32_t shift = kStepBits + kPhaseBits + kChunkBits;
    msg.tag = (msg.tag & ((uint64_t(1) << shift) - 1)) | (uint64_t(id) << shift);
}

std::string
SystemContext::ExportRecords() const
{
    std::ostringstream os;
    for (const auto& r : m_records)
    {
        if (r.started == 0)
        {
            continue;
        }
        os << r.key << " " << int(r.type) << " " << r.bytes << " " << r.members << " "
           << r.start.GetTimeStep() << " " << r.end.GetTimeStep() << " " << r.started << " "
           << r.finished << " " << r.firstTie << " " << r.firstSeq << " " << r.issuers.size();
        for (uint32_t i : r.issuers)
        {
            os << " " << i;
        }
        os << "\n" << r.name << "\n" << r.group << "\n" << r.placement << "\n";
    }
    return os.str();
}

namespace
{
/// \return whether a's first issue comes before b's \param a a record \param b another
bool
FirstIssueBefore(const CollectiveRecord& a, const CollectiveRecord& b)
{
    if (a.start != b.start)
    {
        return a.start < b.start;
    }
    if (a.firstTie != b.firstTie)
    {
        return a.firstTie < b.firstTie;
    }
    return a.firstSeq < b.firstSeq;
}
} // namespace

void
SystemContext::MergeRecords(const std::vector<std::string>& texts)
{
    std::vector<CollectiveRecord> merged;
    std::unordered_map<uint64_t, size_t> byKey;
    for (const auto& t : texts)
    {
        std::istringstream is(t);
        CollectiveRecord r;
        int type = 0;
        int64_t start = 0;
        int64_t end = 0;
        size_t nIssuers = 0;
        while (is >> r.key >> type >> r.bytes >> r.members >> start >> end >> r.started >>
               r.finished >> r.firstTie >> r.firstSeq >> nIssuers)
        {
            r.type = static_cast<CollType>(type);
            r.start = TimeStep(start);
            r.end = TimeStep(end);
            r.issuers.assign(nIssuers, 0);
            for (auto& i : r.issuers)
            {
                is >> i;
            }
            is.get();
            std::getline(is, r.name);
            std::getline(is, r.group);
            std::getline(is, r.placement);
            auto it = byKey.find(r.key);
            if (it == byKey.end())
            {
                byKey.emplace(r.key, merged.size());
                merged.push_back(r);
                continue;
            }
            CollectiveRecord& m = merged[it->second];
            if (FirstIssueBefore(r, m))
            {
                // the earliest issuer's node name and type, as the first member's
                m.name = r.name;
                m.type = r.type;
                m.firstTie = r.firstTie;
                m.firstSeq = r.firstSeq;
            }
            m.start = std::min(m.start, r.start);
            m.end = std::max(m.end, r.end);
            m.started += r.started;
            m.finished += r.finished;
            m.issuers.insert(m.issuers.end(), r.issuers.begin(), r.issuers.end());
        }
    }
    // a single process numbers collectives in the order of their first issues: by time,
    // then (node event order) by the place of the issuing event among that time's events,
    // then by issue within that event
    std::stable_sort(merged.begin(), merged.end(), &FirstIssueBefore);
    m_records = std::move(merged);
}

void
SystemContext::SortRecordsByFirstIssue()
{
    std::stable_sort(m_records.begin(), m_records.end(), &FirstIssueBefore);
}

CollectiveRecord&
SystemContext::Record(uint32_t id)
{
    return m_records.at(id);
}

void
SystemContext::Transmit(const NetMessage& msg, uint64_t cookie, bool notifySent)
{
    ++m_sent;
    if (!m_sentTrace.IsEmpty())
    {
        m_sentTrace(msg);
    }
    m_backend->SendTo(msg, this, cookie, notifySent);
}

int64_t
SystemContext::TransmitFixed(const NetMessage& msg,
                             MessageTimeHint* hint,
                             int64_t processing,
                             AstraSystem* dst,
                             const void* touch)
{
    int64_t t = m_fixed->SendUnscheduled(msg, hint);
    if (t < 0)
    {
        // the backend must see the delivery (e.g. a trace is connected): its own event
        t = m_fixed->GetMessageTimeSteps(msg, hint);
        Transmit(msg, 0, false);
        return t;
    }
    ++m_sent;
    if (!m_sentTrace.IsEmpty())
    {
        m_sentTrace(msg);
    }
    if (!dst)
    {
        dst = PeekSystem(msg.dst);
    }
    if (processing < 0)
    {
        EventBatcher::ScheduleMessageSteps(t, &AstraSystem::DeliveryItem, dst, msg);
    }
    else
    {
        EventBatcher::ScheduleMessageSteps(t + processing,
                                           &AstraSystem::ArrivalItem,
                                           dst,
                                           msg,
                                           touch);
    }
    return t;
}

FixedTimeNetwork*
SystemContext::GetFixedTimeNetwork() const
{
    return m_fixed;
}

InSwitchNetwork*
SystemContext::GetInSwitchNetwork() const
{
    return m_inSwitch;
}

bool
SystemContext::ReserveInSwitch(const CollectiveRequest& req, const CollectivePhase& ph)
{
    if (!m_inSwitch || ph.dim < 0)
    {
        return false;
    }
    std::string why;
    if (m_inSwitch->Reserve(uint32_t(ph.dim), *ph.peers, &why))
    {
        return true;
    }
    if (ph.myIndex != 0)
    {
        return false; // reported by the group's first member
    }
    ASTRA_WARN("in-switch-fallback",
               "collective '" << req.name << "' on group '" << req.group << "' ("
                              << ph.peers->size() << " NPUs, dimension " << ph.dim
                              << "): no aggregation tree (" << why << "); its "
                              << PhaseOpName(ph.op) << " runs the host algorithm (ring)");
    return false;
}

void
SystemContext::JoinInSwitch(const InSwitchOp& op, uint32_t member, uint64_t cookie, bool notifySent)
{
    m_inSwitch->Join(op, member, this, cookie, notifySent);
}

AstraSystem*
SystemContext::PeekSystem(uint32_t npu) const
{
    return PeekPointer(m_systems[npu]);
}

int64_t
SystemContext::ComputeProcessingDelay(uint64_t bytes, bool reduce) const
{
    const SystemParams& p = m_params;
    if (p.compat)
    {
        int64_t d = static_cast<int64_t>(p.endpointDelayNs * p.injectionScale);
        int64_t red = 0;
        if (reduce && p.localMemBwGBps > 0)
        {
            red = 3 * static_cast<int64_t>(double(bytes) / p.localMemBwGBps);
        }
        return NanoSeconds(d + red).GetTimeStep();
    }
    // memo per reduce flag, direct-mapped by size: a phase's receives have one size and
    // only a few phases run at a time
    PdMemo& memo = m_pd[reduce ? 1 : 0][PdSlot(bytes)];
    double ns = p.endpointDelayNs * p.injectionScale;
    if (reduce && p.localMemBwGBps > 0 && !p.reductionFused)
    {
        ns += double(bytes) / p.localMemBwGBps;
    }
    memo.steps = NsToTime(ns).GetTimeStep();
    memo.bytes = bytes;
    return memo.steps;
}

void
SystemContext::MessageSent(const NetMessage& msg, uint64_t cookie)
{
    if (msg.src < m_systems.size())
    {
        m_systems[msg.src]->SentNotify(cookie);
    }
}

void
SystemContext::MessageDelivered(const NetMessage& msg)
{
    if (msg.dst < m_systems.size())
    {
        m_systems[msg.dst]->Deliver(msg);
    }
}

void
SystemContext::PrefetchHint(const NetMessage& msg, uint64_t cookie)
{
    if (msg.dst < m_systems.size())
    {
        const char* sys = reinterpret_cast<const char*>(PeekPointer(m_systems[msg.dst]));
        __builtin_prefetch(sys);
        __builtin_prefetch(sys + 64);
    }
    if (cookie && !(cookie & 1))
    {
        __builtin_prefetch(reinterpret_cast<const void*>(uintptr_t(cookie))); // the stream
    }
}

uint64_t
SystemContext::GetMessagesSent() const
{
    return m_sent;
}

// ---------------------------------------------------------------- AstraSystem

TypeId
AstraSystem::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::AstraSystem")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddConstructor<AstraSystem>()
            .AddTraceSource("CollectiveStart",
                            "A collective started on this NPU (npu, collective id)",
                            MakeTraceSourceAccessor(&AstraSystem::m_collStartTrace),
                            "ns3::astra::AstraSystem::CollectiveTracedCallback")
            .AddTraceSource("CollectiveEnd",
                            "A collective finished on this NPU (npu, collective id)",
                            MakeTraceSourceAccessor(&AstraSystem::m_collEndTrace),
                            "ns3::astra::AstraSystem::CollectiveTracedCallback");
    return tid;
}

AstraSystem::AstraSystem() = default;
AstraSystem::~AstraSystem() = default;

void
AstraSystem::DoDispose()
{
    m_colls.clear();
    m_lastColl = nullptr;
    m_lastCollId = UINT32_MAX;
    m_unclaimed.clear();
    m_p2pPosted.clear();
    m_sendWaiters.clear();
    m_freeWaiters.clear();
    m_ctx = nullptr;
    Object::DoDispose();
}

void
AstraSystem::Setup(SystemContext* ctx, uint32_t npu)
{
    m_ctx = ctx;
    m_npu = npu;
    const SystemParams& p = ctx->GetParams();
    m_compat = p.compat;
    m_fixed = ctx->GetFixedTimeNetwork() != nullptr;
    uint32_t q = p.queuesPerDim;
    uint32_t cap = (p.activeChunks + q - 1) / q;
    m_queues.assign((ctx->GetDims().size() + 1) * q, Queue{});
    for (auto& qq : m_queues)
    {
        qq.capacity = std::max<uint32_t>(1, cap);
    }
}

uint32_t
AstraSystem::GetNpuId() const
{
    return m_npu;
}

uint64_t
AstraSystem::MakeTag(uint32_t coll, uint32_t chunk, uint32_t phase, uint32_t step)
{
    return (uint64_t(coll) << (kStepBits + kPhaseBits + kChunkBits)) |
           (uint64_t(chunk & (kMaxChunks - 1)) << (kStepBits + kPhaseBits)) |
           (uint64_t(phase & ((1u << kPhaseBits) - 1)) << kStepBits) | (uint64_t(step) & kStepMask);
}

uint32_t
AstraSystem::IssueCollective(const CollectiveRequest& reqIn, DoneCallback done)
{
    const SystemParams& p = m_ctx->GetParams();
    std::string groupName;
    auto members = m_ctx->ResolveGroup(reqIn.group, &groupName);
    if (!std::binary_search(members->begin(), members->end(), m_npu))
    {
        throw std::runtime_error("NPU " + std::to_string(m_npu) + " issues collective '" +
                                 reqIn.name + "' on communicator group '" + reqIn.group +
                                 "' but is not a member of it");
    }
    auto c = std::make_unique<CollState>();
    c->req = reqIn;
    if (!p.compat && p.commScale != 1.0)
    {
        c->req.bytes = static_cast<uint64_t>(std::llround(double(reqIn.bytes) * p.commScale));
    }
    c->localSeq = m_localSeq++;
    c->start = Simulator::Now();
    c->cb = std::move(done);
    CollectivePlan plan = m_ctx->GetPlanner().Plan(c->req, m_npu, members);
    if (plan.phases.size() > kMaxPhases)
    {
        throw std::runtime_error("collective '" + reqIn.name + "' needs " +
                                 std::to_string(plan.phases.size()) + " phases (limit " +
                                 std::to_string(kMaxPhases) + ")");
    }
    c->anchor = plan.anchor;

    // the k-th collective on the same (sub)group is the same collective everywhere
    // (plain appends, no ostringstream: this runs per NPU and collective)
    std::string key;
    key.reserve(groupName.size() + reqIn.name.size() + reqIn.involvedDim.size() + 24);
    key += groupName;
    key += '|';
    key += std::to_string(c->anchor);
    key += '|';
    for (bool b : reqIn.involvedDim)
    {
        key += b ? '1' : '0';
    }
    // Match by node name too: NPUs may issue collectives of one group in different orders
    // (their graphs progress at different times); the k-th collective *of that name* on the
    // same instance is the same collective everywhere.
    key += '|';
    key += reqIn.name;
    uint32_t seq = m_groupSeq[key]++;
    bool created = false;
    key += '#';
    key += std::to_string(seq);
    uint32_t id = m_ctx->RegisterCollective(key, created);
    c->id = id;
    CollectiveRecord& rec = m_ctx->Record(id);
    // in-switch phases run on their group's tree if it got one (the backend decides once
    // per group and dimension: every member of the phase gets the same answer)
    for (auto& ph : plan.phases)
    {
        if (ph.algo.inSwitch && !m_ctx->ReserveInSwitch(c->req, ph))
        {
            ph.algo.inSwitch = false;
            ph.algo.spec.kind = AlgoKind::RING;
            ph.algo.steps = IsRootedOp(ph.op) ? &CollectiveAlgorithm::GetRooted()
                                              : CollectiveAlgorithm::Get(AlgoKind::RING);
        }
    }
    if (created)
    {
        rec.name = reqIn.name;
        rec.type = reqIn.type;
        rec.group = reqIn.group;
        rec.bytes = c->req.bytes;
        rec.placement = plan.Placement();
        rec.members = plan.MemberCount();
    }
    else if (rec.type != reqIn.type || rec.bytes != c->req.bytes)
    {
        // the same collective (k-th of this name on this group) must agree on every member
        std::ostringstream os;
        os << "collective '" << reqIn.name << "' #" << seq << " on "
           << (groupName.empty() ? std::string("all NPUs") : "group '" + reqIn.group + "'")
           << " is " << CollTypeName(reqIn.type) << " of " << c->req.bytes << " bytes on NPU "
           << m_npu << " but " << CollTypeName(rec.type) << " of " << rec.bytes << " bytes on NPU "
           << (rec.issuers.empty() ? 0u : rec.issuers.front()) << ": the members' traces disagree";
        throw std::runtime_error(os.str());
    }
    if (created && m_ctx->IsDistributed())
    {
        // members on other ranks: without a gate latency this rank's gate waits for its own
        // members only; with one, their issues' notices come from their ranks
        rec.remote = 0;
        for (uint32_t npu : *members)
        {
            rec.remote += m_ctx->IsLocalNpu(npu) ? 0 : 1;
        }
        if (rec.remote > 0 && m_ctx->GateLatencySteps() > 0)
        {
            rec.otherRanks = m_ctx->RanksOf(*members);
        }
    }
    const uint64_t tie = EventOrder::GetRunningTie();
    if (rec.started == 0)
    {
        // where this issue falls among same-time events: merged records of a distributed
        // run are put in the single process's order (MergeRecords)
        rec.firstTie = tie;
        rec.firstSeq = m_ctx->NextFirstIssue();
    }
    else if (EventOrder::IsWindow() && (Simulator::Now() < rec.start ||
                                        (Simulator::Now() == rec.start && tie < rec.firstTie)))
    {
        // the window simulator runs groups of nodes one after another: an earlier issue can
        // come later; the earliest names the collective, as in a sequential run
        rec.name = reqIn.name;
        rec.firstTie = tie;
        rec.firstSeq = m_ctx->NextFirstIssue();
    }
    rec.started++;
    m_issueContext = Simulator::GetContext();
    rec.start = std::min(rec.start, Simulator::Now());
    rec.issuers.push_back(m_npu);
    c->phases = std::move(plan.phases);

    // chunks
    uint64_t size = c->req.bytes;
    uint32_t nMembers = std::max<uint32_t>(1, rec.members);
    std::vector<uint64_t> chunks;
    if (p.compat)
    {
        uint64_t chunk = size / p.splits;
        if (reqIn.type != CollType::ALL_GATHER && chunk < nMembers)
        {
            chunk = nMembers;
        }
        if (chunk == 0)
        {
            chunk = 1;
        }
        uint64_t cnt = std::max<uint64_t>(1, (size + chunk - 1) / chunk);
        chunks.assign(cnt, chunk);
    }
    else
    {
        uint64_t cnt = std::max<uint64_t>(1, std::min<uint64_t>(p.splits, size));
        for (uint64_t i = 0; i < cnt; ++i)
        {
            chunks.push_back(size / cnt + (i < size % cnt ? 1 : 0));
        }
    }
    if (chunks.size() > kMaxChunks)
    {
        throw std::runtime_error("collective '" + reqIn.name + "' needs " +
                                 std::to_string(chunks.size()) + " chunks (limit " +
                                 std::to_string(kMaxChunks) + ")");
    }
    // per-chunk dimension orders (inter-dimension-scheduling; the default model only)
    std::vector<uint32_t> variantOf(chunks.size(), UINT32_MAX);
    if (!p.compat && p.interDim != InterDimScheduling::BASELINE && !plan.spanned.empty() &&
        chunks.size() > 1)
    {
        std::vector<std::vector<uint32_t>> orders;
        DimensionScheduler::Get(p.interDim).Schedule(plan.op, plan.spanned, chunks, orders);
        std::vector<std::vector<uint32_t>> distinct;
        for (size_t i = 0; i < orders.size(); ++i)
        {
            auto it = std::find(distinct.begin(), distinct.end(), orders[i]);
            variantOf[i] = static_cast<uint32_t>(it - distinct.begin());
            if (it == distinct.end())
            {
                distinct.push_back(orders[i]);
                c->variants.push_back(std::make_unique<std::vector<CollectivePhase>>(
                    m_ctx->GetPlanner().Plan(c->req, m_npu, members, &orders[i]).phases));
                if (c->variants.back()->size() > kMaxPhases)
                {
                    throw std::runtime_error("collective '" + reqIn.name + "' needs " +
                                             std::to_string(c->variants.back()->size()) +
                                             " phases (limit " + std::to_string(kMaxPhases) + ")");
                }
            }
        }
    }
    static_assert(sizeof(Stream) % 64 == 0, "Stream must fill whole cache lines");
    c->streams.Assign(chunks.size());
    for (size_t i = 0; i < chunks.size(); ++i)
    {
        Stream& s = c->streams[i];
        s.coll = c.get();
        s.phases = variantOf[i] == UINT32_MAX ? &c->phases : c->variants[variantOf[i]].get();
        s.chunk = static_cast<uint32_t>(i);
        s.chunkBytes = chunks[i];
        s.bytes = chunks[i];
    }
    NS_LOG_INFO("t=" << Simulator::Now().GetNanoSeconds() << " NPU " << m_npu << " issues "
                     << CollTypeName(reqIn.type) << " #" << id << " '" << reqIn.name << "' "
                     << c->req.bytes << " B on group '" << reqIn.group << "' as " << chunks.size()
                     << " chunk(s): " << rec.placement);
    CollState* cp = c.get();
    m_colls.emplace(id, std::move(c));
    m_collStartTrace(m_npu, id);

    if (cp->phases.empty())
    {
        // nothing to exchange (single-member group)
        EventBatcher::Schedule(Time(0), [this, id]() {
            auto it = m_colls.find(id);
            if (it != m_colls.end())
            {
                Stream* s = &it->second->streams[0];
                it->second->done = static_cast<uint32_t>(it->second->streams.size()) - 1;
                StreamDone(s);
            }
        });
        return id;
    }
    for (auto& s : cp->streams)
    {
        Enqueue(&s);
    }
    if (m_ctx->GateLatencySteps() > 0)
    {
        if (rec.members > 1 && !m_compat)
        {
            m_ctx->PostGateNotice(id);
        }
    }
    else if (rec.started + rec.remote == rec.members && rec.members > 1)
    {
        // the last member issued it: the others may now give it a slot
        std::vector<uint32_t> issuers = rec.issuers;
        for (uint32_t other : issuers)
        {
            if (other != m_npu)
            {
                m_ctx->GetSystem(other)->PumpAll();
            }
        }
    }
    // data that arrived before this NPU issued the collective (after enqueueing, so that
    // chunks peers already run are admitted)
    auto un = m_unclaimed.find(id);
    if (un != m_unclaimed.end())
    {
        std::vector<NetMessage> msgs = std::move(un->second);
        m_unclaimed.erase(un);
        for (const auto& m : msgs)
        {
            HandleCollMessage(m, false);
        }
    }
    return id;
}

bool
AstraSystem::Before(const Stream* a, const Stream* b) const
{
    const SystemParams& p = m_ctx->GetParams();
    if (p.intraDim == IntraDimScheduling::SMALLEST_FIRST && !m_compat)
    {
        // Themis's smallest chunk first: the phase moving the least data (the larger of its
        // input and output per member) goes first
        auto size = [](const Stream* s) {
            const CollectivePhase& ph = (*s->phases)[s->phase];
            return std::max(
                s->bytes,
                PhaseOutputBytes(ph.op, static_cast<uint32_t>(ph.peers->size()), s->bytes));
        };
        const uint64_t sa = size(a);
        const uint64_t sb = size(b);
        if (sa != sb)
        {
            return sa < sb;
        }
    }
    const CollState* ca = a->coll;
    const CollState* cb = b->coll;
    if (ca != cb)
    {
        switch (p.scheduling)
        {
        case SchedulingPolicy::LIFO:
            return ca->localSeq > cb->localSeq;
        case SchedulingPolicy::FIFO:
            return ca->localSeq < cb->localSeq;
        case SchedulingPolicy::EXPLICIT:
            if (ca->req.priority != cb->req.priority)
            {
                return ca->req.priority > cb->req.priority;
            }
            return ca->localSeq < cb->localSeq;
        }
    }
    return a->chunk < b->chunk;
}

void
AstraSystem::Enqueue(Stream* s)
{
    const SystemParams& p = m_ctx->GetParams();
    const CollectivePhase& ph = (*s->phases)[s->phase];
    // the queues of the phase's dimension (flat phases: the extra last dimension)
    const uint32_t queueBase = ph.queueDim * p.queuesPerDim;
    uint32_t nq = p.queuesPerDim;
    if (ph.op == PhaseOp::ALL_REDUCE && nq > 1)
    {
        nq = std::max<uint32_t>(1, nq / 2);
    }
    uint32_t q = queueBase + s->chunk % nq;
    s->queue = q;
    s->queued = true;
    m_queues[q].waiting.push_back(s);
    // a stream Pump starts may run to its end at once and be freed with its collective:
    // not touched after it started
    if (Pump(q, s) || m_compat)
    {
        return;
    }
    // A peer already runs this phase of the chunk (its message came while this NPU was still
    // in an earlier phase): admit it now even beyond the slot limit, as on a first message
    // that arrives while queued. Chunks that visit the dimensions in different orders
    // (inter-dimension scheduling) would otherwise wait on each other's slots.
    for (size_t i = 0; i < s->early.size(); ++i)
    {
        if (s->early[i].phase == s->phase)
        {
            Queue& qu = m_queues[q];
            qu.waiting.erase(std::find(qu.waiting.begin(), qu.waiting.end(), s));
            qu.active++;
            s->queued = false;
            StartPhase(s);
            return;
        }
    }
}

bool
AstraSystem::Pump(uint32_t q, const Stream* watch)
{
    bool watched = false;
    Queue& qu = m_queues[q];
    while (qu.active < qu.capacity && !qu.waiting.empty())
    {
        // only chunks of collectives every member has issued may take a slot: a slot held
        // for a collective a peer has not reached yet could block what that peer waits for
        // (compat: ASTRA-sim 2.0 starts a chunk whether or not its peers have issued the
        // collective; their data waits at the receiver)
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < qu.waiting.size(); ++i)
        {
            const CollectiveRecord& rec = m_ctx->Record(qu.waiting[i]->coll->id);
            if (!m_compat && !m_ctx->GateOpen(rec))
            {
                continue;
            }
            if (rec.remote > 0 && qu.waiting.size() > 1 && !m_compat)
            {
                m_ctx->WarnRemoteGate();
            }
            if (best == SIZE_MAX || Before(qu.waiting[i], qu.waiting[best]))
            {
                best = i;
            }
        }
        if (best == SIZE_MAX)
        {
            return watched;
        }
        Stream* s = qu.waiting[best];
        qu.waiting.erase(qu.waiting.begin() + best);
        qu.active++;
        s->queue = q;
        s->queued = false;
        watched = watched || s == watch;
        StartPhase(s);
    }
    return watched;
}

void
AstraSystem::PumpAll()
{
    for (uint32_t q = 0; q < m_queues.size(); ++q)
    {
        if (!m_queues[q].waiting.empty())
        {
            Pump(q);
        }
    }
}

void
AstraSystem::StartPhase(Stream* s)
{
    const SystemParams& p = m_ctx->GetParams();
    const CollectivePhase& ph = (*s->phases)[s->phase];
    s->step = 0;
    s->posted = false;
    if (ph.custom)
    {
        CustomStart(s);
        return;
    }
    const uint32_t n = static_cast<uint32_t>(ph.peers->size());
    s->steps = ph.algo.NumSteps(ph.op, n, ph.myIndex);
    UniformStep u;
    s->uniform = s->steps > 0 && ph.algo.steps->GetUniformStep(ph.op, n, ph.myIndex, s->bytes, u);
    if (s->uniform)
    {
        // every step sends one message to one peer and receives once (a ring): StartStep
        // runs the steps from these fields without generating them
        s->uniformDst = (*ph.peers)[u.peer];
        s->uniformBytes = m_ctx->WireBytes(u.bytes);
        s->dim = ph.dim;
        s->tagBase = MakeTag(s->coll->id, s->chunk, s->phase, 0);
        s->reduceSteps = u.reduceSteps;
        s->peerSys = m_ctx->PeekSystem(s->uniformDst);
        s->peerStream =
            m_fixed && !m_compat ? s->peerSys->PeekStream(s->coll->id, s->chunk) : nullptr;
    }
    if (p.compat && s->steps > 0)
    {
        int64_t d = static_cast<int64_t>(p.endpointDelayNs * p.injectionScale);
        EventBatcher::Schedule(NanoSeconds(d), &AstraSystem::StartStepItem, this, Pack(s));
    }
    else
    {
        StartStep(s);
    }
}

void
AstraSystem::SendStep(Stream* s, const NetMessage& msg, bool fold)
{
    if (m_fixed)
    {
        // the backend fixes the message's time at send: the effect at the receiver is one
        // batched item of this layer's, and the send completes by its known time instead of a
        // notification (compat streams do not wait for their sends)
        const bool folded = fold && !m_compat;
        // a folded arrival comes with the receiver's processing (its reduce flag of this step
        // is this stream's: the same uniform phase)
        const int64_t t = m_ctx->TransmitFixed(
            msg,
            &s->hint,
            folded ? m_ctx->ProcessingDelaySteps(msg.bytes, s->step < s->reduceSteps, msg.dim) : -1,
            s->uniform ? s->peerSys : nullptr, // in the stream's first line: no table lookup
            s->peerStream);
        if (!m_compat)
        {
            s->sendsDoneAt = std::max(s->sendsDoneAt, EventBatcher::NowSteps() + t);
        }
        return;
    }
    if (m_compat)
    {
        m_ctx->Transmit(msg, 0, false); // compat streams do not wait for their sends
        return;
    }
    s->sendsInFlight++;
    m_ctx->Transmit(msg, Pack(s), true);
}

void
AstraSystem::StepsDone(Stream* s)
{
    // compat: ASTRA-sim ends a stream after its last receive's processing, not waiting for
    // its own sends; default: the phase ends when its sends have completed too
    if (m_compat)
    {
        PhaseDone(s);
        return;
    }
    if (s->sendsInFlight > 0)
    {
        return; // SendDone finishes the phase
    }
    if (m_fixed)
    {
        const int64_t now = EventBatcher::NowSteps();
        if (s->sendsDoneAt > now)
        {
            EventBatcher::ScheduleSteps(s->sendsDoneAt - now,
                                        &AstraSystem::PhaseDoneItem,
                                        this,
                                        Pack(s));
            return;
        }
    }
    PhaseDone(s);
}

void
AstraSystem::StartStep(Stream* s)
{
    while (true)
    {
        if (s->step >= s->steps)
        {
            StepsDone(s);
            return;
        }
        NetMessage msg;
        msg.src = m_npu;
        if (s->uniform)
        {
            msg.dst = s->uniformDst;
            msg.bytes = s->uniformBytes;
            msg.dim = s->dim;
            msg.tag = s->tagBase | (uint64_t(s->step) & kStepMask);
            msg.tclass = TrafficClass::COLLECTIVE;
            // step 0 is not folded: a peer's stream still queued for this phase is admitted
            // by its first message, which must reach it at the arrival time
            SendStep(s, msg, s->step > 0);
            s->outstanding = 1;
            s->reduce = s->step < s->reduceSteps;
        }
        else if (s->coll->phases[s->phase].algo.inSwitch)
        {
            InSwitchStep(s);
        }
        else
        {
            CollState* c = s->coll;
            const CollectivePhase& ph = (*s->phases)[s->phase];
            const uint32_t n = static_cast<uint32_t>(ph.peers->size());
            ph.algo.GetStep(ph.op, n, ph.myIndex, s->bytes, s->step, m_scratch);
            msg.dim = ph.dim;
            msg.tclass =
                ph.op == PhaseOp::BARRIER ? TrafficClass::CONTROL : TrafficClass::COLLECTIVE;
            for (const auto& snd : m_scratch.sends)
            {
                msg.dst = (*ph.peers)[snd.peer];
                msg.bytes = m_ctx->WireBytes(snd.bytes);
                msg.tag = MakeTag(c->id,
                                  s->chunk,
                                  s->phase,
                                  snd.tagStep >= 0 ? uint32_t(snd.tagStep) : s->step);
                SendStep(s, msg, false);
            }
            s->outstanding = m_scratch.recvs;
            s->reduce = m_scratch.reduce;
        }
        if (s->outstanding == 0)
        {
            s->step++;
            continue;
        }
        s->posted = true;
        s->postedAt = EventBatcher::NowSteps();
        // consume data that arrived before this step was posted
        for (size_t i = 0; i < s->early.size();)
        {
            const EarlyMsg& e = s->early[i];
            if (e.phase == s->phase && e.step == s->step)
            {
                EarlyMsg copy = e;
                s->early[i] = s->early.back();
                s->early.pop_back();
                OnRecv(s, copy.src, copy.bytes, copy.tag);
            }
            else
            {
                ++i;
            }
        }
        return;
    }
}

void
AstraSystem::InSwitchStep(Stream* s)
{
    CollState* c = s->coll;
    const CollectivePhase& ph = c->phases[s->phase];
    InSwitchOp op;
    op.key = MakeTag(c->id, s->chunk, s->phase, 0);
    op.kind = InSwitchKind(ph.op);
    op.dim = ph.dim;
    op.members = ph.peers;
    op.root = ph.rootIndex; // REDUCE, BROADCAST: the root's index in the members
    op.bytes = s->bytes;
    op.tclass = TrafficClass::COLLECTIVE;
    const InSwitchVolume v = InSwitchBytes(op.kind,
                                           static_cast<uint32_t>(ph.peers->size()),
                                           ph.myIndex,
                                           op.root,
                                           op.bytes);
    // the contribution completes like a send (compat streams do not wait for their sends);
    // the result is the step's one receive
    const bool notify = v.up > 0 && !m_compat;
    if (notify)
    {
        s->sendsInFlight++;
    }
    s->outstanding = v.down > 0 ? 1 : 0;
    s->reduce = false; // the switches reduced
    m_ctx->JoinInSwitch(op, ph.myIndex, Pack(s), notify);
}

void
AstraSystem::OnRecv(Stream* s, uint32_t src, uint64_t bytes, uint64_t tag)
{
    NS_LOG_LOGIC("t=" << Simulator::Now().GetNanoSeconds() << " NPU " << m_npu << " coll "
                      << s->coll->id << " chunk " << s->chunk << " phase " << s->phase << " step "
                      << s->step << " recv " << bytes << " B from " << src);
    const int32_t dim = s->uniform ? s->dim : (*s->phases)[s->phase].dim;
    EventBatcher::ScheduleSteps(m_ctx->ProcessingDelaySteps(bytes, s->reduce, dim),
                                &AstraSystem::RecvProcessedItem,
                                this,
                                Pack(s));
}

void
AstraSystem::SendDone(Stream* s)
{
    // compat: ASTRA-sim ends a stream after its last receive's processing, not waiting for
    // its own sends (they were already counted by then); default: wait for them
    if (--s->sendsInFlight == 0 && !s->custom && s->step >= s->steps &&
        !m_ctx->GetParams().compat && s->phase < s->phases->size())
    {
        PhaseDone(s);
    }
}

uint64_t
AstraSystem::Pack(Stream* s)
{
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(s));
}

void
AstraSystem::RecvProcessedItem(void* obj, uint64_t s, uint64_t)
{
    static_cast<AstraSystem*>(obj)->RecvProcessed(reinterpret_cast<Stream*>(uintptr_t(s)));
}

void
AstraSystem::StartStepItem(void* obj, uint64_t s, uint64_t)
{
    static_cast<AstraSystem*>(obj)->StartStep(reinterpret_cast<Stream*>(uintptr_t(s)));
}

void
AstraSystem::ArrivalItem(void* obj, const NetMessage& msg)
{
    auto* sys = static_cast<AstraSystem*>(obj);
    if (!sys->m_ctx)
    {
        return; // disposed
    }
    sys->m_ctx->m_fixed->CompleteUnscheduled(msg);
    sys->HandleCollMessage(msg, true);
}

void
AstraSystem::DeliveryItem(void* obj, const NetMessage& msg)
{
    auto* sys = static_cast<AstraSystem*>(obj);
    if (!sys->m_ctx)
    {
        return; // disposed
    }
    sys->m_ctx->m_fixed->CompleteUnscheduled(msg);
    sys->HandleCollMessage(msg, false);
}

const AstraSystem::Stream*
AstraSystem::PeekStream(uint32_t coll, uint32_t chunk) const
{
    auto it = m_colls.find(coll);
    if (it == m_colls.end() || chunk >= it->second->streams.size())
    {
        return nullptr;
    }
    return &it->second->streams[chunk];
}

void
AstraSystem::PhaseDoneItem(void* obj, uint64_t s, uint64_t)
{
    static_cast<AstraSystem*>(obj)->PhaseDone(reinterpret_cast<Stream*>(uintptr_t(s)));
}

void
AstraSystem::CustomNodeDoneItem(void* obj, uint64_t s, uint64_t idx)
{
    static_cast<AstraSystem*>(obj)->CustomNodeDone(reinterpret_cast<Stream*>(uintptr_t(s)),
                                                   static_cast<uint32_t>(idx));
}

uint64_t
AstraSystem::AddSendWaiter(DoneCallback done, Stream* stream, uint32_t node)
{
    uint32_t slot;
    if (m_freeWaiters.empty())
    {
        slot = static_cast<uint32_t>(m_sendWaiters.size());
        m_sendWaiters.emplace_back();
    }
    else
    {
        slot = m_freeWaiters.back();
        m_freeWaiters.pop_back();
    }
    SendWaiter& w = m_sendWaiters[slot];
    w.done = std::move(done);
    w.stream = stream;
    w.node = node;
    // streams are 64-byte aligned, so a stream cookie is even and a waiter's is odd
    return (uint64_t(slot) << 1) | 1;
}

void
AstraSystem::SentNotify(uint64_t cookie)
{
    if (!(cookie & 1))
    {
        SendDone(reinterpret_cast<Stream*>(uintptr_t(cookie)));
        return;
    }
    const uint32_t slot = static_cast<uint32_t>(cookie >> 1);
    if (slot >= m_sendWaiters.size())
    {
        return; // disposed
    }
    // move out first: the callback may send (and reuse or grow the table)
    SendWaiter& w = m_sendWaiters[slot];
    DoneCallback done = std::move(w.done);
    Stream* stream = w.stream;
    const uint32_t node = w.node;
    w.done = nullptr;
    w.stream = nullptr;
    m_freeWaiters.push_back(slot);
    if (stream)
    {
        CustomNodeDone(stream, node);
    }
    else
    {
        done();
    }
}

void
AstraSystem::RecvProcessed(Stream* s)
{
    if (--s->outstanding == 0)
    {
        s->posted = false;
        s->step++;
        StartStep(s);
    }
}

void
AstraSystem::PhaseDone(Stream* s)
{
    uint32_t q = s->queue;
    m_queues[q].active--;
    const CollectivePhase& ph = (*s->phases)[s->phase];
    s->bytes = PhaseOutputBytes(ph.op,
                                ph.lineSize ? ph.lineSize : static_cast<uint32_t>(ph.peers->size()),
                                s->bytes);
    s->custom.reset();
    s->phase++;
    if (s->phase < s->phases->size())
    {
        Enqueue(s);
    }
    else
    {
        StreamDone(s); // may destroy the collective
    }
    Pump(q);
}

void
AstraSystem::StreamDone(Stream* s)
{
    CollState* c = s->coll;
    if (++c->done < c->streams.size())
    {
        return;
    }
    const int64_t launch = m_ctx->LaunchLatencySteps();
    if (launch > 0 && !c->launched)
    {
        // the collective library's launch latency (collective-protocol), once per collective
        c->launched = true;
        EventBatcher::ScheduleSteps(launch, &AstraSystem::CollectiveEndItem, this, c->id);
        return;
    }
    EndCollective(c);
}

void
AstraSystem::CollectiveEndItem(void* obj, uint64_t id, uint64_t)
{
    auto* sys = static_cast<AstraSystem*>(obj);
    auto it = sys->m_colls.find(static_cast<uint32_t>(id));
    if (sys->m_ctx && it != sys->m_colls.end())
    {
        sys->EndCollective(it->second.get());
    }
}

void
AstraSystem::EndCollective(CollState* c)
{
    uint32_t id = c->id;
    CollectiveRecord& rec = m_ctx->Record(id);
    rec.finished++;
    rec.end = std::max(rec.end, Simulator::Now());
    NS_LOG_INFO("t=" << Simulator::Now().GetNanoSeconds() << " NPU " << m_npu << " finished "
                     << CollTypeName(c->req.type) << " #" << id);
    DoneCallback cb = std::move(c->cb);
    if (m_lastCollId == id)
    {
        m_lastColl = nullptr;
        m_lastCollId = UINT32_MAX;
    }
    m_colls.erase(id);
    m_collEndTrace(m_npu, id);
    if (cb)
    {
        cb();
    }
}

void
AstraSystem::Deliver(const NetMessage& msg)
{
    if (msg.tclass == TrafficClass::POINT_TO_POINT)
    {
        P2PKey k{msg.src, static_cast<int64_t>(msg.tag)};
        auto it = m_p2pPosted.find(k);
        if (it != m_p2pPosted.end() && !it->second.empty())
        {
            DoneCallback cb = std::move(it->second.front());
            it->second.pop_front();
            if (it->second.empty())
            {
                m_p2pPosted.erase(it);
            }
            m_pendingRecvs--;
            cb();
        }
        else
        {
            m_p2pArrived[k]++;
        }
        return;
    }
    HandleCollMessage(msg, false);
}

void
AstraSystem::ArriveProcessed(const NetMessage& msg)
{
    HandleCollMessage(msg, true);
}

void
AstraSystem::HandleCollMessage(const NetMessage& msg, bool processed)
{
    uint32_t coll, chunk, phase, step;
    DecodeTag(msg.tag, coll, chunk, phase, step);
    if (coll != m_lastCollId || !m_lastColl)
    {
        auto it = m_colls.find(coll);
        if (it == m_colls.end())
        {
            m_unclaimed[coll].push_back(msg);
            return;
        }
        CollState* c = it->second.get();
        m_lastColl = c;
        m_lastCollId = coll;
        m_lastStreams = c->streams.data();
        m_lastNStreams = static_cast<uint32_t>(c->streams.size());
    }
    if (chunk >= m_lastNStreams)
    {
        ASTRA_WARN("message-for-unknown-chunk",
                   "NPU " << m_npu << ": message for chunk " << chunk << " of collective " << coll
                          << " which has " << m_lastNStreams
                          << " chunks here (mismatched collective sizes across members?); "
                             "the message is dropped");
        return;
    }
    Stream* s = m_lastStreams + chunk;
    if (s->posted && s->phase == phase && s->step == step)
    {
        // the common case first
        if (!processed)
        {
            OnRecv(s, msg.src, msg.bytes, msg.tag);
            return;
        }
        // arrival + processing delay is now: the processing ran from the arrival if the step
        // was posted by then, else it runs from the posting
        const int64_t now = EventBatcher::NowSteps();
        const int64_t pd = m_ctx->ProcessingDelaySteps(msg.bytes, s->reduce, msg.dim);
        if (s->postedAt + pd <= now)
        {
            RecvProcessed(s);
        }
        else
        {
            EventBatcher::ScheduleSteps(s->postedAt + pd - now,
                                        &AstraSystem::RecvProcessedItem,
                                        this,
                                        Pack(s));
        }
        return;
    }
    if (s->queued && s->phase == phase && !m_compat)
    {
        // A peer already runs this chunk: admit it now even beyond the slot limit. NPUs may
        // issue collectives in different orders; without this, per-NPU slot choices can
        // wait on each other forever.
        Queue& qu = m_queues[s->queue];
        auto w = std::find(qu.waiting.begin(), qu.waiting.end(), s);
        if (w != qu.waiting.end())
        {
            qu.waiting.erase(w);
        }
        qu.active++;
        s->queued = false;
        NS_LOG_DEBUG("NPU " << m_npu << " admits chunk " << chunk << " of collective " << coll
                            << " on arrival from NPU " << msg.src);
        s->early.push_back({phase, step, msg.src, msg.bytes, msg.tag});
        StartPhase(s);
        return;
    }
    if (s->custom && s->phase == phase)
    {
        const auto& peers = *(*s->phases)[phase].peers;
        uint32_t rank = static_cast<uint32_t>(
            std::lower_bound(peers.begin(), peers.end(), msg.src) - peers.begin());
        s->custom->Arrive(rank, step);
        m_customActions.clear();
        s->custom->MatchReceives(m_customActions);
        CustomApply(s);
        return;
    }
    s->early.push_back({phase, step, msg.src, msg.bytes, msg.tag});
}

// ---- custom (trace-defined) algorithms: CustomCollective decides, the engine acts

void
AstraSystem::CustomStart(Stream* s)
{
    const SystemParams& p = m_ctx->GetParams();
    CollState* c = s->coll;
    const CollectivePhase& ph = (*s->phases)[s->phase];
    const std::vector<WorkloadGraph>& traces = *ph.custom;
    if (ph.myIndex >= traces.size())
    {
        const CollType t =
            c->req.type == CollType::REDUCE_SCATTER_BLOCK ? CollType::REDUCE_SCATTER : c->req.type;
        throw std::runtime_error("custom " + std::string(CollTypeName(t)) + " implementation has " +
                                 std::to_string(traces.size()) + " rank traces but rank " +
                                 std::to_string(ph.myIndex) + " of " +
                                 std::to_string(ph.peers->size()) + " members needs one");
    }
    s->custom = std::make_unique<CustomCollective>(traces[ph.myIndex],
                                                   static_cast<uint32_t>(ph.peers->size()),
                                                   static_cast<uint32_t>(kStepMask),
                                                   p.compat ? 1.0 : p.computeScale);
    // messages that arrived before this chunk started
    for (size_t i = 0; i < s->early.size();)
    {
        if (s->early[i].phase == s->phase)
        {
            const auto& peers = *ph.peers;
            uint32_t rank = static_cast<uint32_t>(
                std::lower_bound(peers.begin(), peers.end(), s->early[i].src) - peers.begin());
            s->custom->Arrive(rank, s->early[i].step);
            s->early[i] = s->early.back();
            s->early.pop_back();
        }
        else
        {
            ++i;
        }
    }
    if (s->custom->IsFinished())
    {
        PhaseDone(s);
        return;
    }
    m_customActions.clear();
    s->custom->Run(m_customActions);
    CustomApply(s);
}

void
AstraSystem::CustomApply(Stream* s)
{
    // taken out of the scratch: the next interpreter call may fill it again
    std::vector<CustomCollective::Action> actions;
    actions.swap(m_customActions);
    CollState* c = s->coll;
    const CollectivePhase& ph = (*s->phases)[s->phase];
    for (const auto& a : actions)
    {
        if (a.kind == CustomCollective::Action::SEND)
        {
            NetMessage msg;
            msg.src = m_npu;
            msg.dst = (*ph.peers)[a.peerRank];
            msg.bytes = a.bytes;
            msg.dim = ph.dim;
            msg.tag = MakeTag(c->id, s->chunk, s->phase, a.tag);
            m_ctx->Transmit(msg, AddSendWaiter(nullptr, s, a.node), true);
        }
        else
        {
            EventBatcher::Schedule(a.delay,
                                   &AstraSystem::CustomNodeDoneItem,
                                   this,
                                   Pack(s),
                                   a.node);
        }
    }
}

void
AstraSystem::CustomNodeDone(Stream* s, uint32_t idx)
{
    m_customActions.clear();
    if (s->custom->NodeDone(idx, m_customActions))
    {
        PhaseDone(s);
        return;
    }
    CustomApply(s);
}

// ---- workload SEND / RECV

void
AstraSystem::SendP2P(uint32_t dst, uint64_t bytes, int64_t tag, DoneCallback done)
{
    const SystemParams& p = m_ctx->GetParams();
    NetMessage msg;
    msg.src = m_npu;
    msg.dst = dst;
    msg.bytes = std::max<uint64_t>(
        1,
        p.compat ? bytes : static_cast<uint64_t>(std::llround(double(bytes) * p.commScale)));
    msg.tag = static_cast<uint64_t>(tag);
    msg.dim = -1;
    msg.tclass = TrafficClass::POINT_TO_POINT;
    if (dst >= m_ctx->GetNpuCount())
    {
        throw std::runtime_error("SEND from NPU " + std::to_string(m_npu) + " to NPU " +
                                 std::to_string(dst) + " which does not exist");
    }
    if (done)
    {
        m_ctx->Transmit(msg, AddSendWaiter(std::move(done), nullptr, 0), true);
    }
    else
    {
        m_ctx->Transmit(msg, 0, false);
    }
}

void
AstraSystem::RecvP2P(uint32_t src, uint64_t, int64_t tag, DoneCallback done)
{
    P2PKey k{src, tag};
    auto it = m_p2pArrived.find(k);
    if (it != m_p2pArrived.end() && it->second > 0)
    {
        if (--it->second == 0)
        {
            m_p2pArrived.erase(it);
        }
        EventBatcher::Schedule(Time(0), std::move(done));
        return;
    }
    m_pendingRecvs++;
    m_p2pPosted[k].push_back(std::move(done));
}

uint32_t
AstraSystem::GetActiveCollectives() const
{
    return static_cast<uint32_t>(m_colls.size());
}

uint32_t
AstraSystem::GetPendingRecvs() const
{
    return m_pendingRecvs;
}

std::string
AstraSystem::DescribePending() const
{
    std::ostringstream os;
    std::vector<uint32_t> ids;
    for (const auto& kv : m_colls)
    {
        ids.push_back(kv.first);
    }
    std::sort(ids.begin(), ids.end());
    for (uint32_t id : ids)
    {
        const CollState& c = *m_colls.at(id);
        os << "    collective #" << id << " " << CollTypeName(c.req.type) << " '" << c.req.name
           << "' group '" << c.req.group << "' " << c.req.bytes << " B: " << c.done << "/"
           << c.streams.size() << " chunks done";
        const Stream* s = nullptr;
        for (const auto& st : c.streams)
        {
            if (st.phase < st.phases->size())
            {
                s = &st;
                break;
            }
        }
        if (s)
        {
            const CollectivePhase& ph = (*s->phases)[s->phase];
            os << "; chunk " << s->chunk << " in phase " << s->phase << " (" << PhaseOpName(ph.op)
               << " " << AlgoKindName(ph.algo.spec.kind) << " on "
               << (ph.dim < 0 ? std::string("flat") : "dim " + std::to_string(ph.dim)) << ")";
            if (s->posted && ph.algo.inSwitch)
            {
                os << " waits for its in-switch result (tree of " << ph.peers->size()
                   << " NPUs; every contributor must join)";
            }
            else if (s->posted)
            {
                os << " step " << s->step << "/" << s->steps << " waits for " << s->outstanding
                   << " receive(s) from NPU(s)";
                uint32_t n = static_cast<uint32_t>(ph.peers->size());
                Step tmp;
                int listed = 0;
                for (uint32_t j = 0; j < n && n <= 1024 && listed < 16; ++j)
                {
                    if (j == ph.myIndex || s->step >= ph.algo.NumSteps(ph.op, n, j))
                    {
                        continue;
                    }
                    ph.algo.GetStep(ph.op, n, j, s->bytes, s->step, tmp);
                    for (const auto& sn : tmp.sends)
                    {
                        if (sn.peer == ph.myIndex)
                        {
                            os << " " << (*ph.peers)[j];
                            ++listed;
                            break;
                        }
                    }
                }
            }
            else if (s->custom)
            {
                os << " custom trace waits for receive(s) from NPU(s)";
                for (int32_t r : s->custom->GetAwaitedRanks())
                {
                    if (r >= 0 && uint32_t(r) < ph.peers->size())
                    {
                        os << " " << (*ph.peers)[r];
                    }
                }
            }
            else
            {
                const CollectiveRecord& rec = m_ctx->Record(id);
                os << " queued";
                if (rec.started < rec.members)
                {
                    os << "; not yet issued by NPU(s)";
                    int listed = 0;
                    for (const auto& phd : c.phases)
                    {
                        for (uint32_t x : *phd.peers)
                        {
                            if (listed < 16 &&
                                std::find(rec.issuers.begin(), rec.issuers.end(), x) ==
                                    rec.issuers.end())
                            {
                                os << " " << x;
                                ++listed;
                            }
                        }
                    }
                }
            }
        }
        os << "\n";
    }
    for (const auto& kv : m_p2pPosted)
    {
        for (size_t i = 0; i < kv.second.size(); ++i)
        {
            os << "    RECV from NPU " << kv.first.src << " tag " << kv.first.tag
               << " never matched by a SEND\n";
        }
    }
    return os.str();
}

} // namespace astra
} // namespace ns3
