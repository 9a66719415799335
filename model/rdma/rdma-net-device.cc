#include "rdma-net-device.h"

#include "pfc-header.h"
#include "rdma-channel.h"
#include "rdma-event-pool.h"
#include "roce-header.h"

#include "ns3/abort.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/quad-heap-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNetDevice");

NS_OBJECT_ENSURE_REGISTERED(RdmaNetDevice);

namespace
{
/// Index of the highest set bit of a non-zero byte.
inline uint8_t
HighestBit(uint8_t v)
{
    return static_cast<uint8_t>(31 - __builtin_clz(static_cast<unsigned>(v)));
}

void
PcapSniffEvent(Ptr<PcapFileWrapper> file, Ptr<const Packet> p)
{
    file->Write(Simulator::Now(), p);
}
} // namespace

/**
 * Transmit-complete event without std::function (pooled: no malloc per frame). Scheduled
 * without an EventId (none is needed: it is never cancelled); it keeps the device alive
 * and does nothing if the device was disposed meanwhile.
 */
class RdmaNetDevice::TxCompleteEvent : public EventImpl
{
  public:
    RDMA_EVENT_POOLED(TxCompleteEvent)

    explicit TxCompleteEvent(RdmaNetDevice* dev)
        : m_dev(dev)
    {
    }

    /**
     * Prefetch, a few events ahead, what TransmitComplete and the selection of the next
     * frame read (QuadHeapScheduler::RegisterPrefetch).
     * \param e a TxCompleteEvent \param stage 0: the device's transmission and queue lines;
     * 1: what they lead to (the channel, the front entry of the queue to serve, the frame
     * source)
     */
    static void Prefetch(const EventImpl* e, std::size_t stage)
    {
        const RdmaNetDevice* d = PeekPointer(static_cast<const TxCompleteEvent*>(e)->m_dev);
        if (stage == 0)
        {
            __builtin_prefetch(&d->m_macTxTrace);
            __builtin_prefetch(&d->m_contextId);
            __builtin_prefetch(&d->m_rxHandler);
            __builtin_prefetch(&d->m_queue[0]);
            __builtin_prefetch(&d->m_queue[7]);
            return;
        }
        const RdmaChannel* ch = PeekPointer(d->m_channel);
        __builtin_prefetch(ch);
        __builtin_prefetch(reinterpret_cast<const char*>(ch) + 64);
        const uint8_t eligible = d->m_nonEmpty & ~d->m_pausedMask;
        if (eligible)
        {
            d->m_queue[31 - __builtin_clz(uint32_t(eligible))].PrefetchFrontEntry();
        }
        if (d->m_current)
        {
            __builtin_prefetch(d->m_current);
        }
        if (d->m_source)
        {
            __builtin_prefetch(d->m_source);
        }
    }

  protected:
    void Notify() override
    {
        if (m_dev->m_current)
        {
            m_dev->TransmitComplete();
        }
    }

    static const bool s_registered; //!< Prefetch is registered with the scheduler

  private:
    Ptr<RdmaNetDevice> m_dev; //!< the transmitting device
};

const bool RdmaNetDevice::TxCompleteEvent::s_registered =
    (astra::QuadHeapScheduler::RegisterPrefetch(typeid(TxCompleteEvent), &Prefetch), true);

// ------------------------------------------------------------------------- frame slots

namespace
{
/**
 * Free RdmaFrameSlots, a stack (one simulation per process): Put pushes, Get pops the slot
 * freed last. The stack, not a link inside the slots, holds them, so freeing or taking a
 * slot touches none of its lines (a link would sit on a line a hop otherwise never uses).
 * Never destroyed: slots may be returned while the process exits.
 */
std::vector<RdmaFrameSlot*>* const g_freeSlots = new std::vector<RdmaFrameSlot*>();
} // namespace

RdmaFrameSlot* RdmaFrameSlot::s_receiving{nullptr};

RdmaFrameSlot*
RdmaFrameSlot::Get()
{
    if (!g_freeSlots->empty())
    {
        RdmaFrameSlot* s = g_freeSlots->back();
        g_freeSlots->pop_back();
        return s;
    }
    return new RdmaFrameSlot();
}

void
RdmaFrameSlot::Put(RdmaFrameSlot* s)
{
    s->frame.packet = nullptr;
    g_freeSlots->push_back(s);
}

// ------------------------------------------------------------------------- FrameRing

void
RdmaNetDevice::FrameRing::Push(RdmaFrameSlot* f)
{
    uint32_t cap = static_cast<uint32_t>(m_buf.size());
    if (m_size == cap)
    {
        uint32_t newCap = cap ? cap * 2 : 16;
        std::vector<RdmaFrameSlot*> nb(newCap, nullptr);
        for (uint32_t k = 0; k < m_size; ++k)
        {
            nb[k] = m_buf[(m_head + k) & (cap - 1)];
        }
        m_buf.swap(nb);
        m_head = 0;
        cap = newCap;
    }
    m_buf[(m_head + m_size) & (cap - 1)] = f;
    ++m_size;
}

RdmaFrameSlot*
RdmaNetDevice::FrameRing::Pop()
{
    RdmaFrameSlot* f = m_buf[m_head];
    m_head = (m_head + 1) & (static_cast<uint32_t>(m_buf.size()) - 1);
    --m_size;
    return f;
}

void
RdmaNetDevice::FrameRing::Clear()
{
    while (m_size > 0)
    {
        RdmaFrameSlot::Put(Pop());
    }
    m_buf.clear();
    m_head = 0;
}

// ---------------------------------------------------------------------------- TypeId

TypeId
RdmaNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaNetDevice>()
            .AddAttribute(
                "DataRate",
                "Link rate of the port.",
                DataRateValue(DataRate("100Gbps")),
                MakeDataRateAccessor(&RdmaNetDevice::SetDataRate, &RdmaNetDevice::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "IP MTU of the port (IPv4 total length limit of a RoCE frame).",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RdmaNetDevice::SetMtu, &RdmaNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("PfcEnabled",
                          "React to received 802.1Qbb PFC frames (pause/resume priorities). "
                          "When false they are counted and traced but ignored.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNetDevice::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("ControlPriorities",
                          "Bit mask of priorities served strictly before the data priorities "
                          "(highest priority first). Default: 6 and 7.",
                          UintegerValue(0xC0),
                          MakeUintegerAccessor(&RdmaNetDevice::m_controlMask),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("DwrrQuantum",
                          "DWRR quantum per unit of weight among data priorities (bytes).",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&RdmaNetDevice::m_dwrrQuantum),
                          MakeUintegerChecker<uint32_t>(64, 1 << 20))
            .AddAttribute(
                "DataWeights",
                "DWRR weights of priorities 0..7 (8 positive integers separated by "
                "spaces or commas; weights of control priorities are unused).",
                StringValue("1 1 1 1 1 1 1 1"),
                MakeStringAccessor(&RdmaNetDevice::SetDataWeights, &RdmaNetDevice::GetDataWeights),
                MakeStringChecker())
            .AddAttribute("ReceiveErrorModel",
                          "Error model deciding which received frames are corrupted (dropped).",
                          PointerValue(),
                          MakePointerAccessor(&RdmaNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("MacTx",
                            "A frame starts serialization.",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_macTxTrace),
                            "ns3::RdmaNetDevice::FrameTracedCallback")
            .AddTraceSource("MacRx",
                            "A RoCE frame was received (before the RxHandler).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_macRxTrace),
                            "ns3::RdmaNetDevice::FrameTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped by the device (reason: DropReason).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_dropTrace),
                            "ns3::RdmaNetDevice::DropTracedCallback")
            .AddTraceSource("Enqueue",
                            "A frame entered a priority queue (priority, bytes queued).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_enqueueTrace),
                            "ns3::RdmaNetDevice::QueueTracedCallback")
            .AddTraceSource("Dequeue",
                            "A frame left a priority queue (priority, bytes queued).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_dequeueTrace),
                            "ns3::RdmaNetDevice::QueueTracedCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame was received (per enabled class: priority, quanta).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_pfcRxTrace),
                            "ns3::RdmaNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcTx",
                            "A PFC frame starts serialization (per enabled class).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_pfcTxTrace),
                            "ns3::RdmaNetDevice::PfcTracedCallback")
            .AddTraceSource("PauseState",
                            "A priority became paused (true) or resumed (false).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_pauseTrace),
                            "ns3::RdmaNetDevice::PauseTracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame sent or received (whole frame, Ethernet without FCS).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PromiscSniffer",
                            "Every frame sent or received (whole frame, Ethernet without FCS).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_promiscSnifferTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RdmaNetDevice::RdmaNetDevice()
{
    NS_LOG_FUNCTION(this);
    const char* b = reinterpret_cast<const char*>(this);
    s_rxOffset[0] = reinterpret_cast<const char*>(&m_receiver) - b;
    s_rxOffset[1] = reinterpret_cast<const char*>(&m_macRxTrace) - b;
    s_rxOffset[2] = reinterpret_cast<const char*>(&m_portIndex) - b;
}

RdmaNetDevice::~RdmaNetDevice() = default;

void
RdmaNetDevice::DoInitialize()
{
    m_ticksPerSecond = static_cast<uint64_t>(Seconds(1).GetTimeStep());
    NetDevice::DoInitialize();
}

void
RdmaNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_wakeEvent.Cancel();
    for (auto& e : m_pauseEvent)
    {
        e.Cancel();
    }
    for (auto& q : m_queue)
    {
        q.Clear();
    }
    m_current = nullptr; // owned by its reception event
    m_channel = nullptr;
    m_node = nullptr;
    m_receiveErrorModel = nullptr;
    m_rxHandler = RxHandler();
    m_txHandler = TxHandler();
    m_receiver = nullptr;
    m_receiverTx = false;
    m_dequeueHandler = DequeueHandler();
    m_source = nullptr;
    // Release the sniffer callbacks: pcap files bound to them are closed (flushed) here.
    m_snifferTrace = TracedCallback<Ptr<const Packet>>();
    m_promiscSnifferTrace = TracedCallback<Ptr<const Packet>>();
    NetDevice::DoDispose();
}

std::string
RdmaNetDevice::Name() const
{
    std::ostringstream os;
    os << "RdmaNetDevice node " << m_contextId << " port " << m_portIndex << " (ifIndex "
       << m_ifIndex << ")";
    return os.str();
}

// ------------------------------------------------------------------------- configuration

void
RdmaNetDevice::SetDataRate(DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        throw astra::InputError(Name() + ": DataRate must be > 0");
    }
    m_rate = rate;
    m_bps = rate.GetBitRate();
    m_txCarry = 0;
}

DataRate
RdmaNetDevice::GetDataRate() const
{
    return m_rate;
}

void
RdmaNetDevice::SetDataWeights(std::string s)
{
    for (char& c : s)
    {
        if (c == ',')
        {
            c = ' ';
        }
    }
    std::istringstream is(s);
    uint32_t w[8];
    for (int p = 0; p < 8; ++p)
    {
        long v = 0;
        is >> v;
        if (!is || v <= 0 || v > 1000000)
        {
            throw astra::InputError(Name() + ": DataWeights \"" + s +
                                    "\" must hold 8 integers in 1..1000000 (weight of priority " +
                                    std::to_string(p) + " missing or invalid)");
        }
        w[p] = static_cast<uint32_t>(v);
    }
    std::copy(w, w + 8, m_weights);
}

std::string
RdmaNetDevice::GetDataWeights() const
{
    std::ostringstream os;
    for (int p = 0; p < 8; ++p)
    {
        os << (p ? " " : "") << m_weights[p];
    }
    return os.str();
}

uint8_t
RdmaNetDevice::GetControlPriorities() const
{
    return m_controlMask;
}

void
RdmaNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    m_receiveErrorModel = em;
}

bool
RdmaNetDevice::Attach(Ptr<RdmaChannel> ch)
{
    NS_LOG_FUNCTION(this << ch);
    NS_ABORT_MSG_IF(!ch, Name() << ": Attach to a null channel");
    if (!ch->Attach(this))
    {
        return false;
    }
    m_channel = ch;
    m_linkChange();
    return true;
}

void
RdmaNetDevice::SetRxHandler(RxHandler h, bool usesPacket)
{
    m_rxHandler = h;
    m_rxHandlerUsesPacket = usesPacket;
    m_receiver = nullptr;
    m_receiverTx = false;
}

void
RdmaNetDevice::SetFrameReceiver(RdmaFrameReceiver* r, bool notifyTx)
{
    m_receiver = r;
    m_receiverTx = r && notifyTx;
    m_rxHandler = RxHandler();
    if (m_receiverTx)
    {
        m_txHandler = TxHandler();
    }
}

void
RdmaFrameReceiver::PrefetchFrame(const RdmaNetDevice*, const RdmaQueuedFrame&) const
{
}

void
RdmaFrameReceiver::PrefetchFrameState(const RdmaNetDevice*, const RdmaQueuedFrame&) const
{
}

void
RdmaFrameReceiver::FrameSent(RdmaNetDevice* /* dev */, const RdmaQueuedFrame& /* frame */)
{
}

void
RdmaNetDevice::SetTxHandler(TxHandler h)
{
    m_txHandler = h;
    m_receiverTx = false;
}

void
RdmaNetDevice::SetDequeueHandler(DequeueHandler h)
{
    m_dequeueHandler = h;
}

void
RdmaNetDevice::SetFrameSource(RdmaFrameSource* src)
{
    m_source = src;
    if (!src)
    {
        m_wakeEvent.Cancel();
    }
}

void
RdmaNetDevice::NotifySourceReady()
{
    StartNext();
}

// ------------------------------------------------------------------------- timing helpers

uint64_t
RdmaNetDevice::NextTxTicks(uint32_t frameBytes)
{
    if (m_ticksPerSecond == 0)
    {
        m_ticksPerSecond = static_cast<uint64_t>(Seconds(1).GetTimeStep());
    }
    // Exact long-run rate: the remainder of each division is carried to the next frame,
    // so N back-to-back frames take floor(N * bits / rate) ticks in total.
    unsigned __int128 num =
        static_cast<unsigned __int128>(uint64_t(frameBytes + kEthernetWireOverhead) * 8u) *
            m_ticksPerSecond +
        m_txCarry;
    if (static_cast<uint64_t>(num >> 64) == 0)
    {
        const uint64_t n64 = static_cast<uint64_t>(num); // usual case: 64-bit division
        m_txCarry = n64 % m_bps;
        return n64 / m_bps;
    }
    uint64_t q = static_cast<uint64_t>(num / m_bps);
    m_txCarry = static_cast<uint64_t>(num % m_bps);
    return q;
}

uint64_t
RdmaNetDevice::BitTicks(uint64_t bits) const
{
    uint64_t tps = m_ticksPerSecond ? m_ticksPerSecond : Seconds(1).GetTimeStep();
    return static_cast<uint64_t>(static_cast<unsigned __int128>(bits) * tps / m_bps);
}

Time
RdmaNetDevice::GetTxTime(uint32_t frameBytes) const
{
    return TimeStep(BitTicks(uint64_t(frameBytes + kEthernetWireOverhead) * 8u));
}

// ------------------------------------------------------------------------- queues

void
RdmaNetDevice::EnqueueFrame(RdmaQueuedFrame&& frame)
{
    const uint8_t p = frame.meta.priority;
    NS_ABORT_MSG_IF(p > 7, Name() << ": EnqueueFrame with priority " << +p << " (must be 0..7)");
    NS_ABORT_MSG_IF(frame.meta.frameBytes == 0 ||
                        (!frame.packet && frame.meta.kind != RdmaFrameKind::ROCE),
                    Name() << ": EnqueueFrame with frameBytes 0 or no packet (only a RoCE "
                              "frame may leave it null, to be built from its meta; build "
                              "frames with RoceFrame::Build)");
    NS_ABORT_MSG_IF(
        frame.meta.kind == RdmaFrameKind::ROCE &&
            frame.meta.frameBytes > uint32_t(m_mtu) + RoceHeader::kEthBytes + RoceHeader::kFcsBytes,
        Name() << ": frame of " << frame.meta.frameBytes << " B exceeds the port MTU " << m_mtu);
    if (!m_channel)
    {
        DropFrame(frame, DROP_NO_CHANNEL);
        return;
    }
    m_queueBytes[p] += frame.meta.frameBytes;
    RdmaFrameSlot* slot;
    if (RdmaFrameSlot::s_receiving && &frame == &RdmaFrameSlot::s_receiving->frame)
    {
        slot = RdmaFrameSlot::s_receiving; // the frame being received: take its slot over
        RdmaFrameSlot::s_receiving = nullptr;
    }
    else
    {
        slot = RdmaFrameSlot::Get();
        slot->frame = std::move(frame);
    }
    m_queue[p].Push(slot);
    m_nonEmpty |= static_cast<uint8_t>(1u << p);
    if (!m_enqueueTrace.IsEmpty())
    {
        m_enqueueTrace(p, m_queueBytes[p]);
    }
    if (!m_busy)
    {
        StartNext();
    }
}

RdmaFrameSlot*
RdmaNetDevice::PopQueue(uint8_t p)
{
    RdmaFrameSlot* out = m_queue[p].Pop();
    m_queueBytes[p] -= out->frame.meta.frameBytes;
    if (m_queue[p].Empty())
    {
        m_nonEmpty &= static_cast<uint8_t>(~(1u << p));
    }
    if (!m_dequeueTrace.IsEmpty())
    {
        m_dequeueTrace(p, m_queueBytes[p]);
    }
    return out;
}

bool
RdmaNetDevice::PickDataQueue(uint8_t eligible, uint8_t& prio)
{
    if ((eligible & (eligible - 1)) == 0)
    {
        // One active data priority: no arbitration; the frame ends the queue's turn, so a
        // newly active priority is visited next.
        prio = static_cast<uint8_t>(__builtin_ctz(eligible));
        m_dwrrCur = prio;
        m_dwrrTurn = true; // this frame spends the queue's current turn
        m_deficit[prio] = 0;
        return true;
    }
    // Deficit weighted round robin, one decision per call. A queue's turn adds its
    // quantum once; it is served while its head fits in the deficit.
    const uint32_t guard = 8 * ((1u << 16) / 64 + 2);
    for (uint32_t it = 0; it < guard; ++it)
    {
        const uint8_t p = m_dwrrCur;
        if (eligible & (1u << p))
        {
            if (!m_dwrrTurn)
            {
                m_deficit[p] += int64_t(m_dwrrQuantum) * m_weights[p];
                m_dwrrTurn = true;
            }
            const uint32_t sz = m_queue[p].Front()->frame.meta.frameBytes;
            if (int64_t(sz) <= m_deficit[p])
            {
                m_deficit[p] -= sz;
                prio = p;
                if (m_queue[p].Size() == 1)
                {
                    m_deficit[p] = 0; // queue becomes empty: forfeit the deficit
                    m_dwrrCur = static_cast<uint8_t>((p + 1) & 7);
                    m_dwrrTurn = false;
                }
                return true;
            }
        }
        // advance to the next eligible priority (cyclic)
        const unsigned higher = eligible & ~((2u << p) - 1u);
        m_dwrrCur = static_cast<uint8_t>(__builtin_ctz(higher ? higher : eligible));
        m_dwrrTurn = false;
    }
    prio = HighestBit(eligible); // unreachable with sane quanta
    return true;
}

void
RdmaNetDevice::StartNext()
{
    if (m_busy)
    {
        return;
    }
    if (m_selecting)
    {
        m_kick = true; // re-entrant call (from a handler or the frame source): re-run later
        return;
    }
    m_selecting = true;
    do
    {
        m_kick = false;
        if (m_pfcPending)
        {
            m_pfcPending = false;
            RdmaFrameSlot* s = RdmaFrameSlot::Get();
            s->frame.meta = m_pfcMeta;
            s->frame.meta.inPort = 0;
            s->frame.packet =
                RoceFrame::BuildPfc(s->frame.meta, Mac48Address::ConvertFrom(GetAddress()));
            StartTransmit(s);
            break;
        }
        const uint8_t ready = m_nonEmpty & static_cast<uint8_t>(~m_pausedMask);
        const uint8_t ctrl = ready & m_controlMask;
        if (ctrl)
        {
            StartTransmit(PopQueue(HighestBit(ctrl)));
            break;
        }
        const uint8_t data = ready & static_cast<uint8_t>(~m_controlMask);
        if (m_source && (m_preferSource || !data))
        {
            Time nextTry = Time::Max();
            RdmaFrameSlot* s = RdmaFrameSlot::Get();
            if (m_source->DequeueFrame(m_pausedMask, s->frame, nextTry))
            {
                NS_ABORT_MSG_IF(s->frame.meta.frameBytes == 0 ||
                                    (!s->frame.packet && s->frame.meta.kind != RdmaFrameKind::ROCE),
                                Name() << ": frame source returned a frame without frameBytes "
                                          "(build it with RoceFrame::Build)");
                m_preferSource = false;
                StartTransmit(s);
                break;
            }
            RdmaFrameSlot::Put(s);
            if (!data)
            {
                if (nextTry != Time::Max())
                {
                    ScheduleWake(nextTry);
                }
                continue; // re-run only if a re-entrant enqueue happened (m_kick)
            }
        }
        if (data)
        {
            uint8_t p = 0;
            PickDataQueue(data, p);
            m_preferSource = true;
            StartTransmit(PopQueue(p));
            break;
        }
    } while (m_kick);
    m_selecting = false;
}

Ptr<Packet>
RdmaNetDevice::EnsurePacket(RdmaQueuedFrame& frame)
{
    if (!frame.packet)
    {
        RdmaMeta m = frame.meta; // Build sets frameBytes; a handler may have changed it
        frame.packet = RoceFrame::Build(m);
    }
    return frame.packet;
}

void
RdmaNetDevice::StartTransmit(RdmaFrameSlot* s)
{
    RdmaQueuedFrame& f = s->frame;
    const bool pfc = (f.meta.kind == RdmaFrameKind::PFC);
    if (!pfc && !m_dequeueHandler.IsNull())
    {
        m_dequeueHandler(this, f);
    }
    m_busy = true;
    const uint64_t ticks = NextTxTicks(f.meta.frameBytes);
    ++m_txFrames;
    m_txBytes += f.meta.frameBytes;
    if (pfc)
    {
        ++m_pfcTx;
        if (!m_pfcTxTrace.IsEmpty())
        {
            for (uint8_t p = 0; p < 8; ++p)
            {
                if (f.meta.pfcClassEnable & (1u << p))
                {
                    m_pfcTxTrace(p, f.meta.pfcQuanta[p]);
                }
            }
        }
    }
    if (!m_macTxTrace.IsEmpty())
    {
        EnsurePacket(f);
        m_macTxTrace(f);
    }
    if (!m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(EnsurePacket(f));
    }
    if (!m_promiscSnifferTrace.IsEmpty())
    {
        m_promiscSnifferTrace(EnsurePacket(f));
    }
    const Time txTime = TimeStep(ticks);
    // The transmit-complete event is scheduled before the reception event: at equal
    // times (zero delay) it runs first, so the slot (owned by the reception event) is
    // still alive when the TxHandler sees m_current.
    Simulator::ScheduleWithContext(m_contextId, txTime, new TxCompleteEvent(this));
    m_current = s;
    m_channel->TransmitSlot(s, this, txTime);
}

void
RdmaNetDevice::TransmitComplete()
{
    m_busy = false;
    if (m_receiverTx)
    {
        if (m_current->frame.meta.kind != RdmaFrameKind::PFC)
        {
            m_selecting = true; // the receiver may enqueue: selection runs once, below
            m_receiver->FrameSent(this, m_current->frame);
            m_selecting = false;
        }
    }
    else if (!m_txHandler.IsNull() && m_current->frame.meta.kind != RdmaFrameKind::PFC)
    {
        m_selecting = true; // the handler may enqueue: selection runs once, below
        m_txHandler(this, m_current->frame);
        m_selecting = false;
    }
    m_current = nullptr;
    StartNext();
}

void
RdmaNetDevice::ScheduleWake(Time at)
{
    const Time now = Simulator::Now();
    if (at <= now)
    {
        at = now + TimeStep(1); // never spin at the same instant
    }
    if (m_wakeEvent.IsRunning())
    {
        if (m_wakeEvent.GetTs() <= static_cast<uint64_t>(at.GetTimeStep()))
        {
            return; // an earlier wake-up is pending; it will poll again
        }
        Simulator::Remove(m_wakeEvent);
    }
    m_wakeEvent = Simulator::Schedule(at - now, &RdmaNetDevice::WakeUp, this);
}

void
RdmaNetDevice::WakeUp()
{
    StartNext();
}

void
RdmaNetDevice::SendPfc(uint8_t priority, uint16_t quanta)
{
    NS_ABORT_MSG_IF(priority > 7, Name() << ": SendPfc priority " << +priority << " > 7");
    if (!m_channel)
    {
        return;
    }
    if (!m_pfcPending)
    {
        m_pfcMeta = RdmaMeta();
        m_pfcMeta.kind = RdmaFrameKind::PFC;
        m_pfcMeta.priority = 7;
        m_pfcPending = true;
    }
    // A PFC frame not yet on the wire is updated in place (latest value per class wins).
    m_pfcMeta.pfcClassEnable |= static_cast<uint16_t>(1u << priority);
    m_pfcMeta.pfcQuanta[priority] = quanta;
    StartNext();
}

// ------------------------------------------------------------------------- PFC reaction

void
RdmaNetDevice::HandlePfc(const RdmaQueuedFrame& f)
{
    ++m_pfcRx;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (!(f.meta.pfcClassEnable & (1u << p)))
        {
            continue;
        }
        const uint16_t q = f.meta.pfcQuanta[p];
        if (!m_pfcRxTrace.IsEmpty())
        {
            m_pfcRxTrace(p, q);
        }
        if (!m_pfcEnabled)
        {
            continue;
        }
        if (q == 0)
        {
            Resume(p);
        }
        else
        {
            Pause(p, q);
        }
    }
}

void
RdmaNetDevice::Pause(uint8_t p, uint16_t quanta)
{
    const Time now = Simulator::Now();
    const Time until = now + TimeStep(BitTicks(uint64_t(quanta) * 512u));
    const uint8_t bit = static_cast<uint8_t>(1u << p);
    if (!(m_pausedMask & bit))
    {
        m_pausedMask |= bit;
        m_pauseStart[p] = now;
        if (!m_pauseTrace.IsEmpty())
        {
            m_pauseTrace(p, true);
        }
    }
    m_pauseUntil[p] = until; // a later frame replaces the expiry
    if (m_pauseEvent[p].IsRunning())
    {
        if (m_pauseEvent[p].GetTs() <= static_cast<uint64_t>(until.GetTimeStep()))
        {
            return; // the pending timer fires first and re-arms itself (no pile-up)
        }
        Simulator::Remove(m_pauseEvent[p]);
    }
    m_pauseEvent[p] = Simulator::Schedule(until - now, &RdmaNetDevice::PauseExpire, this, p);
}

void
RdmaNetDevice::PauseExpire(uint8_t p)
{
    const Time now = Simulator::Now();
    if (now < m_pauseUntil[p])
    {
        m_pauseEvent[p] =
            Simulator::Schedule(m_pauseUntil[p] - now, &RdmaNetDevice::PauseExpire, this, p);
        return;
    }
    Resume(p);
}

void
RdmaNetDevice::Resume(uint8_t p)
{
    const uint8_t bit = static_cast<uint8_t>(1u << p);
    if (m_pauseEvent[p].IsRunning())
    {
        Simulator::Remove(m_pauseEvent[p]);
    }
    if (!(m_pausedMask & bit))
    {
        return;
    }
    const Time now = Simulator::Now();
    m_pausedMask &= static_cast<uint8_t>(~bit);
    m_pauseTotal[p] += now - m_pauseStart[p];
    m_pauseUntil[p] = now;
    if (!m_pauseTrace.IsEmpty())
    {
        m_pauseTrace(p, false);
    }
    StartNext();
}

bool
RdmaNetDevice::IsPaused(uint8_t priority) const
{
    return priority < 8 && (m_pausedMask & (1u << priority));
}

uint8_t
RdmaNetDevice::GetPausedMask() const
{
    return m_pausedMask;
}

Time
RdmaNetDevice::GetPauseTime(uint8_t p) const
{
    NS_ABORT_MSG_IF(p > 7, Name() << ": GetPauseTime priority " << +p);
    Time t = m_pauseTotal[p];
    if (m_pausedMask & (1u << p))
    {
        t += Simulator::Now() - m_pauseStart[p];
    }
    return t;
}

Time
RdmaNetDevice::GetPauseExpiry(uint8_t p) const
{
    NS_ABORT_MSG_IF(p > 7, Name() << ": GetPauseExpiry priority " << +p);
    return m_pauseUntil[p];
}

// ------------------------------------------------------------------------- reception

void
RdmaNetDevice::DropFrame(RdmaQueuedFrame& f, DropReason r)
{
    ++m_drops;
    NS_LOG_LOGIC(Name() << " drop reason " << +r);
    if (!m_dropTrace.IsEmpty())
    {
        EnsurePacket(f);
        m_dropTrace(f, r);
    }
}

void
RdmaNetDevice::Receive(RdmaQueuedFrame& frame)
{
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(EnsurePacket(frame)))
    {
        DropFrame(frame, DROP_RX_ERROR);
        return;
    }
    ++m_rxFrames;
    m_rxBytes += frame.meta.frameBytes;
    if (!m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(EnsurePacket(frame));
    }
    if (!m_promiscSnifferTrace.IsEmpty())
    {
        m_promiscSnifferTrace(EnsurePacket(frame));
    }
    if (frame.meta.kind == RdmaFrameKind::PFC)
    {
        HandlePfc(frame);
        return;
    }
    if (!m_macRxTrace.IsEmpty())
    {
        EnsurePacket(frame);
        m_macRxTrace(frame);
    }
    if (m_receiver)
    {
        m_receiver->ReceiveFrame(this, frame);
        return;
    }
    if (m_rxHandler.IsNull())
    {
        DropFrame(frame, DROP_NO_HANDLER);
        return;
    }
    if (m_rxHandlerUsesPacket)
    {
        EnsurePacket(frame);
    }
    m_rxHandler(this, frame);
}

// ------------------------------------------------------------------------- getters

uint32_t
RdmaNetDevice::GetQueueBytes(uint8_t priority) const
{
    return priority < 8 ? m_queueBytes[priority] : 0;
}

uint32_t
RdmaNetDevice::GetQueueFrames(uint8_t priority) const
{
    return priority < 8 ? m_queue[priority].Size() : 0;
}

uint64_t
RdmaNetDevice::GetTxBytes() const
{
    return m_txBytes;
}

uint64_t
RdmaNetDevice::GetTxFrames() const
{
    return m_txFrames;
}

uint64_t
RdmaNetDevice::GetRxFrames() const
{
    return m_rxFrames;
}

uint64_t
RdmaNetDevice::GetRxBytes() const
{
    return m_rxBytes;
}

uint64_t
RdmaNetDevice::GetDrops() const
{
    return m_drops;
}

uint64_t
RdmaNetDevice::GetPfcRxFrames() const
{
    return m_pfcRx;
}

uint64_t
RdmaNetDevice::GetPfcTxFrames() const
{
    return m_pfcTx;
}

bool
RdmaNetDevice::IsBusy() const
{
    return m_busy;
}

Ptr<RdmaChannel>
RdmaNetDevice::GetRdmaChannel() const
{
    return m_channel;
}

uint32_t
RdmaNetDevice::GetPortIndex() const
{
    return m_portIndex;
}

void
RdmaNetDevice::SetPortIndex(uint32_t i)
{
    m_portIndex = i;
}

// ------------------------------------------------------------------------- pcap

Ptr<PcapFileWrapper>
RdmaNetDevice::EnablePcap(std::string prefix, Ptr<RdmaNetDevice> dev, bool explicitFilename)
{
    NS_ABORT_MSG_IF(!dev, "RdmaNetDevice::EnablePcap: null device");
    PcapHelper helper;
    std::string filename;
    if (explicitFilename)
    {
        filename = prefix;
    }
    else if (dev->GetNode())
    {
        filename = helper.GetFilenameFromDevice(prefix, dev);
    }
    else
    {
        std::ostringstream os;
        os << prefix << "-port" << dev->GetPortIndex() << ".pcap";
        filename = os.str();
    }
    Ptr<PcapFileWrapper> file = helper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    dev->TraceConnectWithoutContext("PromiscSniffer", MakeBoundCallback(&PcapSniffEvent, file));
    return file;
}

void
RdmaPcapHelper::EnablePcapInternal(std::string prefix,
                                   Ptr<NetDevice> nd,
                                   bool /* promiscuous */,
                                   bool explicitFilename)
{
    Ptr<RdmaNetDevice> dev = DynamicCast<RdmaNetDevice>(nd);
    if (!dev)
    {
        NS_LOG_INFO("RdmaPcapHelper: skipping device of type " << nd->GetInstanceTypeId());
        return;
    }
    RdmaNetDevice::EnablePcap(prefix, dev, explicitFilename);
}

// ------------------------------------------------------------------------- NetDevice API

void
RdmaNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
RdmaNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RdmaNetDevice::GetChannel() const
{
    return m_channel;
}

void
RdmaNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
    m_addressSet = true;
}

Address
RdmaNetDevice::GetAddress() const
{
    if (m_addressSet)
    {
        return m_address;
    }
    return RoceFrame::MacFromNodePort(m_contextId, m_portIndex);
}

bool
RdmaNetDevice::SetMtu(const uint16_t mtu)
{
    if (mtu < 256)
    {
        throw astra::InputError(Name() + ": Mtu must be >= 256, got " + std::to_string(mtu));
    }
    m_mtu = mtu;
    return true;
}

uint16_t
RdmaNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
RdmaNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
RdmaNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChange.ConnectWithoutContext(callback);
}

bool
RdmaNetDevice::IsBroadcast() const
{
    return false;
}

Address
RdmaNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
RdmaNetDevice::IsMulticast() const
{
    return false;
}

Address
RdmaNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
RdmaNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
RdmaNetDevice::IsPointToPoint() const
{
    return true;
}

bool
RdmaNetDevice::IsBridge() const
{
    return false;
}

bool
RdmaNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    ASTRA_WARN("rdma-device-send",
               Name() << ": NetDevice::Send() is not supported (packet dropped); use "
                         "EnqueueFrame with RoceFrame::Build");
    return false;
}

bool
RdmaNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
RdmaNetDevice::GetNode() const
{
    return m_node;
}

void
RdmaNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
    m_contextId = node ? node->GetId() : 0;
}

bool
RdmaNetDevice::NeedsArp() const
{
    return false;
}

void
RdmaNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
RdmaNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
RdmaNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
