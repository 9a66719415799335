/*
 * The step engine of ASTRA-sim's system layer on ns-3: per NPU, collectives
 * planned by the CollectivePlanner (collective-planner.h) are cut into chunks,
 * scheduled on per-dimension queues and executed step by step as messages
 * through a NetworkBackend; the steps come from the phases' algorithms
 * (collective-algorithm.h) or, for custom algorithms, from the
 * CustomCollective interpreter (custom-collective.h). Receives are matched
 * here; the backend only reports delivery. Workload SEND/RECV are matched on
 * (src, dst, tag).
 */

#ifndef ASTRA_SYSTEM_H
#define ASTRA_SYSTEM_H

#include "collective-algorithm.h"
#include "collective-planner.h"
#include "custom-collective.h"
#include "system-params.h"

#include "ns3/event-batcher.h"
#include "ns3/network-backend.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/topology.h"
#include "ns3/traced-callback.h"
#include "ns3/workload-graph.h"

#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{
namespace astra
{

class AstraSystem;

/// One collective as seen across its members (for reports).
struct CollectiveRecord
{
    std::string name;                    //!< first member's node name
    CollType type{CollType::ALL_REDUCE}; //!< type
    std::string group;                   //!< group name ("" = all)
    std::string placement;         //!< CollectivePlan::Placement(), e.g. "ALL_REDUCE@dim0:ring"
    uint64_t bytes{0};             //!< comm_size
    uint32_t members{0};           //!< group size
    Time start{Time::Max()};       //!< earliest start over members
    Time end{0};                   //!< latest end over members
    uint32_t started{0};           //!< members that issued it
    uint32_t finished{0};          //!< members that finished it
    std::vector<uint32_t> issuers; //!< NPUs that issued it, in order
    uint32_t remote{0};            //!< distributed runs: members on other ranks
    uint64_t key{0};               //!< distributed runs: rank-independent key
    /// collective-gate-latency-ns > 0: members' issue notices that reached the gate
    uint32_t noticed{0};
    /// distributed runs with a gate latency: the other ranks that hold members
    std::vector<uint32_t> otherRanks;
    /// node event order: tie-break of the event of the first local issue (EventOrder)
    uint64_t firstTie{0};
    uint64_t firstSeq{0}; //!< the process's count of first issues at that issue
};

/**
 * \ingroup astra-sim
 * State shared by the systems of one simulation: backend, dimensions,
 * parameters, communicator groups, message dispatch and the collective
 * registry (the k-th collective an NPU issues on a group is the same
 * collective on every member).
 */
class SystemContext : public Object, public MessageSink, public DistributedMessageCodec
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    SystemContext();
    ~SystemContext() override;

    /**
     * Create one AstraSystem per NPU.
     * \param backend the network backend
     * \param dims network dimensions (product = NPU count)
     * \param params system parameters
     */
    void Setup(Ptr<NetworkBackend> backend,
               const std::vector<DimensionSpec>& dims,
               const SystemParams& params);

    /// Set communicator groups (from the comm-group JSON): id -> member NPUs.
    void SetCommGroups(const std::map<std::string, std::vector<uint32_t>>& groups);
    /// Add one group (e.g. from a METADATA node); replaces an existing one of the same name.
    void AddCommGroup(const std::string& name, const std::vector<uint32_t>& members);
    /// \return true if a group of that name is known
    bool HasCommGroup(const std::string& name) const;

    /// \return one NPU's system (null in a distributed run for an NPU of another rank)
    Ptr<AstraSystem> GetSystem(uint32_t npu) const;
    uint32_t GetNpuCount() const;                      //!< \return NPU count
    const SystemParams& GetParams() const;             //!< \return parameters
    const std::vector<DimensionSpec>& GetDims() const; //!< \return dimensions
    Ptr<NetworkBackend> GetBackend() const;            //!< \return backend

    /// \return coordinate of npu along dim (dimension 0 varies fastest)
    uint32_t Coord(uint32_t npu, uint32_t dim) const;
    /// \return npu with its coordinate along dim replaced by c
    uint32_t WithCoord(uint32_t npu, uint32_t dim, uint32_t c) const;

    /// \return all collective records, indexed by collective id
    const std::vector<CollectiveRecord>& GetRecords() const;

    /**
     * \internal Hand a message to the backend through the sink path: on
     * completion the source system's SentNotify(cookie) (if \p notifySent),
     * then delivery to the destination system.
     * \param msg the message
     * \param cookie passed to SentNotify
     * \param notifySent whether SentNotify is wanted
     */
    void Transmit(const NetMessage& msg, uint64_t cookie, bool notifySent);

    /**
     * \internal Hand a collective message to a backend with fixed message
     * times (GetFixedTimeNetwork() not null) and schedule its effect at the
     * receiver as one batched item: with \p processing < 0 the delivery at
     * now + T, else the arrival folded with the receiver's processing at
     * now + T + processing (the destination system's ArriveProcessed). If the
     * backend must see the delivery itself (FixedTimeNetwork::SendUnscheduled
     * declines), the message takes the sink path and is delivered unfolded.
     * \param msg the message
     * \param hint the caller's route memo (may be null)
     * \param processing the receiver's processing delay in time steps, or -1 (do not fold)
     * \param dst the destination's system if the caller has it at hand (else null: looked up)
     * \param touch an address the receiver will read (prefetched; may be stale or null)
     * \return the message's network time T in time steps
     */
    int64_t TransmitFixed(const NetMessage& msg,
                          MessageTimeHint* hint,
                          int64_t processing,
                          AstraSystem* dst,
                          const void* touch);

    /**
     * \return the backend's fixed-time interface if it has one and the
     * FixedTimeShortcuts attribute is on, else null (queried once in Setup)
     */
    FixedTimeNetwork* GetFixedTimeNetwork() const;

    /// \return the backend's in-switch interface, or null (queried once in Setup)
    InSwitchNetwork* GetInSwitchNetwork() const;

    /**
     * \internal Ask for the tree of an in-switch phase's group (every member
     * asks; the backend decides once per group and dimension); on a refusal
     * the group's first member warns (in-switch-fallback).
     * \param req the collective
     * \param ph the phase
     * \return true if the phase runs in the switches
     */
    bool ReserveInSwitch(const CollectiveRequest& req, const CollectivePhase& ph);

    /**
     * \internal A member takes part in an in-switch operation (InSwitchNetwork::Join,
     * with this context as the sink).
     * \param op the operation
     * \param member the member's index
     * \param cookie SentNotify's cookie
     * \param notifySent whether SentNotify is wanted
     */
    void JoinInSwitch(const InSwitchOp& op, uint32_t member, uint64_t cookie, bool notifySent);
    /// \internal MessageSink: the source system's SentNotify(cookie)
    void MessageSent(const NetMessage& msg, uint64_t cookie) override;
    /// \internal MessageSink: deliver to the destination system
    void MessageDelivered(const NetMessage& msg) override;
    /// \internal MessageSink: prefetch the destination system and the sending stream
    void PrefetchHint(const NetMessage& msg, uint64_t cookie) override;

    /// \internal \return the system of \p npu without a reference count (hot paths; null
    /// for an NPU of another rank)
    AstraSystem* PeekSystem(uint32_t npu) const;

    /// \internal \return the receiver's processing delay of a message (endpoint +
    /// reduction) in time steps (memoized; per-message paths)
    int64_t ProcessingDelaySteps(uint64_t bytes, bool reduce, int32_t dim) const
    {
        const int64_t step = m_stepLat[uint32_t(dim + 1)]; // collective-step-latency-ns
        if (!m_params.compat)
        {
            const PdMemo& m = m_pd[reduce ? 1 : 0][PdSlot(bytes)];
            if (m.bytes == bytes)
            {
                return m.steps + step;
            }
        }
        return ComputeProcessingDelay(bytes, reduce) + step;
    }

    /// \internal \return the bytes a message of \p payload bytes puts on the wire under the
    /// collective protocol (LL, LL128: more than the payload)
    uint64_t WireBytes(uint64_t payload) const
    {
        return m_wireFactor == 1.0
                   ? payload
                   : static_cast<uint64_t>(std::ceil(double(payload) * m_wireFactor));
    }

    /// \internal \return the collective protocol's launch latency in time steps (0: none)
    int64_t LaunchLatencySteps() const
    {
        return m_launchSteps;
    }

    /// \internal registry: \return global id of (key), creating a record
    uint32_t RegisterCollective(const std::string& key, bool& created);
    /// \internal \return mutable record
    CollectiveRecord& Record(uint32_t id);

    /**
     * \internal The slot gate of a collective: open once every member has issued it, as
     * far as this NPU's gate knows. Without a gate latency an issue counts at once (a
     * distributed run counts the members on other ranks as issued); with one, once the
     * issue's notice has arrived, the gate latency after the issue.
     * \param rec the collective's record
     * \return true if its chunks may take slots
     */
    bool GateOpen(const CollectiveRecord& rec) const
    {
        return m_gateSteps > 0 ? rec.members > 0 && rec.noticed >= rec.members
                               : rec.started + rec.remote >= rec.members;
    }

    /// \internal \return the gate latency in time steps (0: none)
    int64_t GateLatencySteps() const
    {
        return m_gateSteps;
    }

    /**
     * \internal The running event's NPU issued collective \p id: its notice reaches every
     * member's gate the gate latency from now (a local event; with members on other
     * ranks, one notice to each of those ranks, under the same tie-break).
     * \param id the collective
     */
    void PostGateNotice(uint32_t id);

    /// \return the next CollectiveRecord::firstSeq
    uint64_t NextFirstIssue()
    {
        return m_firstIssues++;
    }

    /**
     * The members of the group a pg_name names. A name that is not a group's
     * exact name is read as ASTRA-sim reads it, as an integer (std::stoi:
     * leading blanks, a sign, digits, the rest ignored), so "3.0" and "03"
     * name group 3 (a warning, once per name); "" and a name that reads as 0
     * name all NPUs unless a group "0" is defined.
     * \param name the pg_name
     * \param canonical if not null, set to the group's own name ("" for all NPUs)
     * \return the member list; throws std::runtime_error if no group matches
     */
    std::shared_ptr<const std::vector<uint32_t>> ResolveGroup(
        const std::string& name,
        std::string* canonical = nullptr) const;
    /// \return the names of the groups defined (communicator-group file, traces)
    std::vector<std::string> GetCommGroupNames() const;

    /// \return the collective planner (dimensions, placement, algorithm choice)
    const CollectivePlanner& GetPlanner() const;

    /// \return messages handed to the backend
    uint64_t GetMessagesSent() const;

    /**
     * Distributed runs: only the NPUs flagged local run here (the others run on other
     * ranks), and only theirs keep a system (AstraSystem): the others' are released. A
     * collective's slot gate without a gate latency counts the members on other ranks as
     * issued (each rank gates on its own members; cross-rank progress is carried by the
     * messages, whose collective travels as a rank-independent key: ExportKey).
     * \param local per NPU: runs on this rank
     */
    void SetLocalNpus(const std::vector<bool>& local);
    /**
     * Distributed runs: as SetLocalNpus, with every NPU's rank, which a gate latency
     * (collective-gate-latency-ns > 0) needs: an issue's notice then travels to the other
     * ranks that hold members of the collective (Distributed::PostNotice) and reaches
     * their gates at the same time as in one process, so results are identical.
     * \param ranks per NPU: its rank
     * \param me this process's rank
     */
    void SetNpuRanks(const std::vector<uint32_t>& ranks, uint32_t me);
    /// \return true if npu runs on this rank (always true unless SetLocalNpus) \param npu
    bool IsLocalNpu(uint32_t npu) const;
    /// \return true after SetLocalNpus
    bool IsDistributed() const;

    uint64_t ExportKey(const NetMessage& msg) override;
    void ImportKey(NetMessage& msg, uint64_t key) override;

    /**
     * Distributed runs: this rank's collective records as text (one line each, with
     * their keys; records no local member issued are left out), for MergeRecords.
     * \return the text
     */
    std::string ExportRecords() const;
    /**
     * Replace the records with the merge of every rank's ExportRecords (rank 0, for the
     * reports): a collective's start is the earliest, its end the latest, issuers and
     * finishers add up; collectives are numbered by start, then first issuer.
     * \param texts ExportRecords of every rank
     */
    void MergeRecords(const std::vector<std::string>& texts);
    /**
     * Number the collectives in the order of their first issues, as MergeRecords does
     * (the window simulator issues them out of time order; after the run, for the reports).
     */
    void SortRecordsByFirstIssue();

    /// Trace signature of MessageSent.
    typedef void (*MessageTracedCallback)(const NetMessage& msg);

  protected:
    void DoDispose() override;

  private:
    Ptr<NetworkBackend> m_backend;
    std::vector<DimensionSpec> m_dims;
    CollectivePlanner m_planner;
    SystemParams m_params;
    std::vector<Ptr<AstraSystem>> m_systems;
    std::map<std::string, std::shared_ptr<const std::vector<uint32_t>>> m_groups;
    std::shared_ptr<const std::vector<uint32_t>> m_world;
    /// pg_names resolved by reading them as integers: name -> the group's own name
    mutable std::map<std::string, std::string> m_groupAliases;
    std::unordered_map<std::string, uint32_t> m_collIds;
    std::vector<CollectiveRecord> m_records;
    uint64_t m_firstIssues{0}; //!< collectives first issued in this process (firstSeq)
    std::vector<bool> m_local; //!< distributed: NPU runs here
    bool m_distributed{false}; //!< SetLocalNpus was called
    std::unordered_map<uint64_t, uint32_t> m_idByKey; //!< distributed: key -> collective id
    std::vector<uint32_t> m_npuRank; //!< distributed (SetNpuRanks): rank of every NPU
    uint32_t m_rank{0};              //!< distributed (SetNpuRanks): this rank
    int64_t m_gateSteps{0};          //!< collective-gate-latency-ns in time steps
    bool m_noticeHandler{false};     //!< registered with Distributed::SetNoticeHandler
    bool m_warnedGate{false};        //!< the distributed slot-gate warning was checked

    /// \return the other ranks (sorted) that hold NPUs of \p npus
    std::vector<uint32_t> RanksOf(const std::vector<uint32_t>& npus) const;
    /// warn once that the gate counts members on other ranks as issued (no gate latency)
    void WarnRemoteGate();
    /// \return the collective of a rank-independent key, numbered now if first met
    uint32_t IdOfKey(uint64_t key);
    /// a member's issue notice reached the gates of this rank's members of \p id
    void GateNotice(uint32_t id);
    /// event of a local notice \param ctx the context \param id the collective
    static void GateNoticeEvent(SystemContext* ctx, uint32_t id);
    /// Distributed::NoticeFn: a notice from another rank (\p key: the collective's)
    static void RemoteGateNotice(void* obj, uint64_t key);
    uint64_t m_sent{0};
    bool m_batching{true};                //!< EventBatching attribute
    bool m_useFixedTimes{true};           //!< FixedTimeShortcuts attribute
    FixedTimeNetwork* m_fixed{nullptr};   //!< the backend's, if m_useFixedTimes
    InSwitchNetwork* m_inSwitch{nullptr}; //!< the backend's in-switch interface, if any
    bool m_batcherOwner{false};           //!< this context enabled the EventBatcher
    TracedCallback<const NetMessage&> m_sentTrace;

    /// ProcessingDelay memo entry (NPUs of one phase receive the same sizes, so a small
    /// table shared by all serves every concurrent phase)
    struct PdMemo
    {
        uint64_t bytes{UINT64_MAX}; //!< bytes it was computed for (UINT64_MAX = empty)
        int64_t steps{0};           //!< the delay in time steps
    };

    static constexpr uint32_t kPdMemoBits = 6; //!< log2 entries per reduce flag

    /// \return the memo slot of a size
    static uint32_t PdSlot(uint64_t bytes)
    {
        return static_cast<uint32_t>((bytes * 0x9E3779B97F4A7C15ull) >> (64 - kPdMemoBits));
    }

    /// ProcessingDelaySteps without the memo lookup (fills the memo)
    int64_t ComputeProcessingDelay(uint64_t bytes, bool reduce) const;

    mutable PdMemo m_pd[2][uint32_t(1) << kPdMemoBits]; //!< by reduce flag, hash of bytes
    /// per-step latency in time steps by dimension + 1 (index 0: flat phases)
    std::vector<int64_t> m_stepLat;
    double m_wireFactor{1.0}; //!< the protocol's wire bytes per payload byte
    int64_t m_launchSteps{0}; //!< the protocol's launch latency (time steps)

    friend class AstraSystem; // its per-message entries read m_fixed directly
};

/**
 * \ingroup astra-sim
 * The system layer of one NPU.
 */
class AstraSystem : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AstraSystem();
    ~AstraSystem() override;

    /// Completion callback.
    using DoneCallback = std::function<void()>;

    /// \internal called by SystemContext::Setup
    void Setup(SystemContext* ctx, uint32_t npu);

    /// \return this NPU's id
    uint32_t GetNpuId() const;

    /**
     * Start a collective. Throws std::runtime_error for an unknown group or
     * an NPU that is not a member.
     * \return the collective's global id
     */
    uint32_t IssueCollective(const CollectiveRequest& req, DoneCallback done);

    /// Workload SEND: completes when the backend reports the message sent.
    void SendP2P(uint32_t dst, uint64_t bytes, int64_t tag, DoneCallback done);
    /// Workload RECV: completes when the matching message (src, me, tag) has arrived.
    void RecvP2P(uint32_t src, uint64_t bytes, int64_t tag, DoneCallback done);

    /// \internal a message for this NPU was delivered by the backend
    void Deliver(const NetMessage& msg);
    /**
     * \internal a uniform step's message (SystemContext::TransmitFixed, folded) arrived
     * and, if its step was posted on arrival, has been processed: now is arrival +
     * processing delay
     */
    void ArriveProcessed(const NetMessage& msg);
    /// \internal a message sent with SystemContext::Transmit(cookie) completed at the sender
    void SentNotify(uint64_t cookie);
    /// \internal offer free slots again (a collective became ready on all members)
    void PumpAll();

    /// \internal context (node id) of the event in which this NPU last issued a collective
    uint32_t GetIssueContext() const
    {
        return m_issueContext;
    }

    /// \return collectives in progress
    uint32_t GetActiveCollectives() const;
    /// \return posted workload receives not yet matched
    uint32_t GetPendingRecvs() const;
    /// \return a human-readable list of what this NPU is waiting for
    std::string DescribePending() const;

    /// Trace signature: (npu, collective id).
    typedef void (*CollectiveTracedCallback)(uint32_t npu, uint32_t collId);

    /// Tag layout of collective messages.
    static uint64_t MakeTag(uint32_t coll, uint32_t chunk, uint32_t phase, uint32_t step);

  protected:
    void DoDispose() override;

  private:
    struct EarlyMsg
    {
        uint32_t phase;
        uint32_t step;
        uint32_t src;
        uint64_t bytes;
        uint64_t tag;
    };
    struct CollState;

    /// Messages that arrived before their step was posted (rare: no allocation while empty).
    class EarlyList
    {
      public:
        size_t size() const
        {
            return m_v ? m_v->size() : 0;
        }

        EarlyMsg& operator[](size_t i)
        {
            return (*m_v)[i];
        }

        EarlyMsg& back()
        {
            return m_v->back();
        }

        void pop_back()
        {
            m_v->pop_back();
        }

        void push_back(const EarlyMsg& e)
        {
            if (!m_v)
            {
                m_v = std::make_unique<std::vector<EarlyMsg>>();
            }
            m_v->push_back(e);
        }

      private:
        std::unique_ptr<std::vector<EarlyMsg>> m_v;
    };

    /// One chunk of a collective: three cache lines, the first two holding what a uniform
    /// (ring) message touches (LineArray keeps them aligned).
    struct alignas(64) Stream
    {
        // line 1: receive matching and step state
        AstraSystem* peerSys{nullptr};     //!< uniform: the peer's system
        const Stream* peerStream{nullptr}; //!< uniform: its stream of this chunk if known (a
                                           //!< prefetch address only, never dereferenced)
        int64_t postedAt{0};               //!< time (steps) the current step was posted
        uint32_t phase{0};
        uint32_t step{0};
        uint32_t steps{0};
        uint32_t outstanding{0};   //!< receives (incl. processing) not yet done
        uint32_t reduceSteps{0};   //!< uniform: steps below this reduce what they receive
        uint32_t sendsInFlight{0}; //!< sends of this phase not yet acknowledged
        uint32_t uniformDst{0};    //!< uniform: the peer every step sends to
        int32_t dim{-1};           //!< uniform: the phase's dimension
        bool posted{false};
        bool queued{false}; //!< waiting for a slot
        bool reduce{false};
        bool uniform{false}; //!< the phase's steps are uniform (the uniform fields are set)
        uint32_t queue{0};
        // line 2: the rest of what a uniform step sends (StartStep then needs neither the
        // phase description nor its peer list)
        EarlyList early;
        uint64_t uniformBytes{0}; //!< bytes per step
        uint64_t tagBase{0};      //!< MakeTag(coll, chunk, phase, 0)
        /// latest completion (time steps) of sends whose time the backend fixed at send
        int64_t sendsDoneAt{0};
        MessageTimeHint hint; //!< route memo for the backend
        // line 3: per phase and per chunk
        CollState* coll{nullptr};
        /// the chunk's phases (the collective's, or its own dimension order's variant)
        const std::vector<CollectivePhase>* phases{nullptr};
        std::unique_ptr<CustomCollective> custom; //!< custom phase: the interpreter
        uint32_t chunk{0};
        uint64_t chunkBytes{0};
        uint64_t bytes{0}; //!< input bytes of the current phase
    };

    /**
     * A fixed-size array whose elements start on 64-byte boundaries (plain
     * new[] and an offset: no aligned allocation, which fragments the heap when
     * collectives come and go by the hundred thousand).
     */
    template <class T>
    class LineArray
    {
      public:
        LineArray() = default;
        LineArray(const LineArray&) = delete;
        LineArray& operator=(const LineArray&) = delete;

        ~LineArray()
        {
            Clear();
        }

        /// Replace the contents by \p n default-constructed elements.
        void Assign(size_t n)
        {
            Clear();
            m_raw = std::make_unique<unsigned char[]>(n * sizeof(T) + 64);
            const auto a = reinterpret_cast<uintptr_t>(m_raw.get());
            m_data = reinterpret_cast<T*>((a + 63) & ~uintptr_t(63));
            for (size_t i = 0; i < n; ++i)
            {
                new (m_data + i) T();
            }
            m_n = n;
        }

        void Clear()
        {
            for (size_t i = 0; i < m_n; ++i)
            {
                m_data[i].~T();
            }
            m_n = 0;
            m_data = nullptr;
            m_raw.reset();
        }

        size_t size() const
        {
            return m_n;
        }

        T* data()
        {
            return m_data;
        }

        T& operator[](size_t i)
        {
            return m_data[i];
        }

        const T& operator[](size_t i) const
        {
            return m_data[i];
        }

        T* begin()
        {
            return m_data;
        }

        T* end()
        {
            return m_data + m_n;
        }

        const T* begin() const
        {
            return m_data;
        }

        const T* end() const
        {
            return m_data + m_n;
        }

      private:
        std::unique_ptr<unsigned char[]> m_raw;
        T* m_data{nullptr};
        size_t m_n{0};
    };

    struct CollState
    {
        uint32_t id{0};
        CollectiveRequest req;
        uint64_t localSeq{0};
        uint32_t anchor{0};                  //!< smallest member NPU (identifies the instance)
        std::vector<CollectivePhase> phases; //!< the planner's order
        /// per-chunk dimension orders of an inter-dimension scheduler (each a phase list)
        std::vector<std::unique_ptr<std::vector<CollectivePhase>>> variants;
        LineArray<Stream> streams;
        uint32_t done{0};
        DoneCallback cb;
        Time start;
        bool launched{false}; //!< its chunks are done; the launch latency runs
    };

    struct Queue
    {
        uint32_t active{0};
        uint32_t capacity{1};
        std::vector<Stream*> waiting;
    };

    void Enqueue(Stream* s);
    /**
     * Start waiting streams of queue \p q while it has free slots.
     * \param q the queue
     * \param watch a stream of interest (may be null)
     * \return whether \p watch was started (it may have finished and been freed since)
     */
    bool Pump(uint32_t q, const Stream* watch = nullptr);
    bool Before(const Stream* a, const Stream* b) const;
    void StartPhase(Stream* s);
    void StartStep(Stream* s);
    /// the one step of an in-switch phase: join the backend's operation
    void InSwitchStep(Stream* s);
    void OnRecv(Stream* s, uint32_t src, uint64_t bytes, uint64_t tag);
    void RecvProcessed(Stream* s);
    void SendDone(Stream* s);
    void PhaseDone(Stream* s);
    /// all steps of the phase ran: finish it now, or when its sends complete
    void StepsDone(Stream* s);
    /// send one step message of \p s (completion accounted per backend kind; \p fold:
    /// a uniform step after the first, whose arrival may be folded with the receiver's
    /// processing)
    void SendStep(Stream* s, const NetMessage& msg, bool fold);
    void StreamDone(Stream* s);
    /// \param processed the message comes from ArriveProcessed (folded with processing)
    void HandleCollMessage(const NetMessage& msg, bool processed);
    /// start a custom phase: its interpreter takes the messages that arrived early
    void CustomStart(Stream* s);
    /// a node of \p s's custom trace finished
    void CustomNodeDone(Stream* s, uint32_t idx);
    /// do what \p s's interpreter asked for (m_customActions)
    void CustomApply(Stream* s);
    /// \return a SentNotify cookie that runs \p done, or CustomNodeDone(stream, node)
    uint64_t AddSendWaiter(DoneCallback done, Stream* stream, uint32_t node);
    /// \return a stream pointer as an EventBatcher argument
    static uint64_t Pack(Stream* s);
    /// EventBatcher entries (obj = the AstraSystem, a = Pack(stream), b = node index)
    static void RecvProcessedItem(void* obj, uint64_t s, uint64_t);
    static void StartStepItem(void* obj, uint64_t s, uint64_t);
    static void PhaseDoneItem(void* obj, uint64_t s, uint64_t);
    /// EventBatcher entry: the collective \p id ends (after its launch latency)
    static void CollectiveEndItem(void* obj, uint64_t id, uint64_t);
    /// end the collective \p c on this NPU (record, trace, the workload's callback)
    void EndCollective(CollState* c);
    /// EventBatcher entries of SystemContext::TransmitFixed (obj = the receiving system)
    static void ArrivalItem(void* obj, const NetMessage& msg);
    static void DeliveryItem(void* obj, const NetMessage& msg);
    /// \return this NPU's stream of (collective, chunk), or null (not issued here yet)
    const Stream* PeekStream(uint32_t coll, uint32_t chunk) const;
    friend class SystemContext;
    static void CustomNodeDoneItem(void* obj, uint64_t s, uint64_t idx);

    // what every message touches comes first (near the object's start, which the
    // EventBatcher prefetches)
    SystemContext* m_ctx{nullptr};
    /// last collective found by HandleCollMessage (saves the hash lookup per message)
    CollState* m_lastColl{nullptr}; //!< the collective m_lastCollId, or nullptr
    Stream* m_lastStreams{nullptr}; //!< its streams (saves reading the collective per message)
    uint32_t m_lastCollId{UINT32_MAX};
    uint32_t m_lastNStreams{0}; //!< their number
    uint32_t m_npu{0};
    uint32_t m_issueContext{0xFFFFFFFF}; //!< context of this NPU's last issue (GateNotice)
    bool m_compat{false};                //!< params.compat
    bool m_fixed{false};                 //!< the backend fixes message times at send

    uint64_t m_localSeq{0};
    std::unordered_map<std::string, uint32_t> m_groupSeq;
    std::unordered_map<uint32_t, std::unique_ptr<CollState>> m_colls;
    std::unordered_map<uint32_t, std::vector<NetMessage>> m_unclaimed;
    std::vector<Queue> m_queues;
    Step m_scratch;
    std::vector<CustomCollective::Action> m_customActions; //!< scratch of CustomApply

    /// A message whose sent notification runs a callback (SEND) or a custom trace node.
    struct SendWaiter
    {
        DoneCallback done;       //!< SEND: the workload's callback
        Stream* stream{nullptr}; //!< custom: the stream
        uint32_t node{0};        //!< custom: the trace node
    };

    std::vector<SendWaiter> m_sendWaiters; //!< by slot (cookie = slot << 1 | 1)
    std::vector<uint32_t> m_freeWaiters;   //!< reusable slots of m_sendWaiters

    // workload SEND/RECV matching, key = (src, tag)
    struct P2PKey
    {
        uint32_t src;
        int64_t tag;

        bool operator==(const P2PKey& o) const
        {
            return src == o.src && tag == o.tag;
        }
    };

    struct P2PHash
    {
        size_t operator()(const P2PKey& k) const
        {
            return std::hash<uint64_t>()((uint64_t(k.src) << 40) ^ uint64_t(k.tag));
        }
    };

    std::unordered_map<P2PKey, uint32_t, P2PHash> m_p2pArrived;
    std::unordered_map<P2PKey, std::deque<DoneCallback>, P2PHash> m_p2pPosted;
    uint32_t m_pendingRecvs{0};

    TracedCallback<uint32_t, uint32_t> m_collStartTrace;
    TracedCallback<uint32_t, uint32_t> m_collEndTrace;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_SYSTEM_H */
