/*
 * RdmaNetDevice: a full-duplex Ethernet port for RoCEv2 fabrics, used both as
 * a host NIC port and as a switch port. Eight priority queues, strict priority
 * for control classes and DWRR/round-robin for data classes, 802.1Qbb PFC
 * reaction (pause quanta, expiry, resume on 0), serialization that counts
 * preamble, IFG and FCS. Frames travel with their parsed headers (RdmaMeta)
 * so the per-hop path never re-parses. At most two events per hop while the
 * link is busy: transmit-complete at the sender and receive at the peer.
 *
 * Ownership: the node-level owner (RdmaSwitch on switches, RdmaHostStack on
 * hosts) installs an RxHandler, and on hosts a FrameSource that the device
 * polls for data frames whenever it could transmit.
 *
 * Semantics (implementation notes for the owners):
 * - Selection order when the port is free: pending PFC frame (never paused) >
 *   control priorities (attribute ControlPriorities, default 6 and 7; highest
 *   first; subject to PFC pause like any priority) > data. Data: the frame
 *   source and the data queues alternate (one frame each when both have one);
 *   among data queues DWRR (DwrrQuantum x DataWeights[p] bytes per turn).
 * - Serialization time = (frameBytes + 20) x 8 / rate, in Time steps; the
 *   division remainder is carried to the next frame, so N back-to-back frames
 *   take exactly floor(N x bits / rate). GetTxTime() returns the floor without
 *   carry.
 * - Events: one transmit-complete per frame (the next frame starts in the same
 *   event) and one reception event per frame (RdmaChannel). The frame source is
 *   polled at each transmit-complete and on NotifySourceReady(); nextTry is an
 *   ABSOLUTE time; a single wake-up event is kept (an earlier nextTry replaces a
 *   later one; times <= now are moved to now + 1 step).
 * - Handlers: DequeueHandler(dev, frame&) runs just before serialization of a
 *   queued or source frame (not PFC) and may change the meta (INT, ECN, and
 *   frameBytes which then sets the tx time); TxHandler(dev, frame) at the end of
 *   serialization (not PFC). Enqueue/Send calls made from inside handlers or
 *   from DequeueFrame are safe: selection is re-run once, never nested.
 * - Frames are stored in pooled slots (RdmaFrameSlot) and never copied per hop: an
 *   RxHandler that calls EnqueueFrame(std::move(frame)) on the frame it received
 *   hands the frame's slot over (do not use frame afterwards, as after any move).
 *   The channel keeps a FIFO of frames in flight per direction with one pending
 *   reception event. frame.packet may be null (lazily built RoCE frame): see
 *   RdmaQueuedFrame::packet and EnsurePacket().
 * - PFC reaction: quanta q > 0 pauses for floor(q x 512 / rate) from the arrival
 *   of the PFC frame; a later frame replaces the expiry (longer or shorter);
 *   q = 0 resumes at once; the frame on the wire finishes. One timer per
 *   priority, re-armed lazily (no pile-up). PFC frames are consumed (PfcRx,
 *   PauseState traces), not passed to the RxHandler. SendPfc() coalesces calls
 *   made before the pending PFC frame starts into one multi-class frame.
 * - ReceiveErrorModel applies to every received frame (PFC included): dropped
 *   frames are counted (GetDrops) and traced (Drop, DROP_RX_ERROR).
 * - MAC address: SetAddress() value, else 02:nn:nn:nn:pp:pp from node id and
 *   port index (used as the PFC source). RoCE frames carry the MACs chosen by
 *   RoceFrame::Build (derived from the IPs by default).
 * - Not supported: NetDevice::Send (returns false). A link between MPI ranks is an
 *   RdmaRemoteChannel (module built with ns-3's mpi module; doc/distributed.rst).
 */

#ifndef RDMA_NET_DEVICE_H
#define RDMA_NET_DEVICE_H

#include "rdma-meta.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/trace-helper.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace ns3
{

class RdmaChannel;
class Node;
class ErrorModel;

/**
 * \ingroup astra-sim
 * A frame sitting in a device queue.
 */
struct RdmaQueuedFrame
{
    /**
     * The frame's bytes (headers + payload + ICRC). May be null for a RoCE frame: the
     * device then builds the bytes from meta (RoceFrame::Build, MACs from the IPs) only
     * when something looks at them (sniffer/pcap, MacTx/MacRx/Drop sinks, receive error
     * model, an RxHandler installed with usesPacket = true). See RdmaNetDevice::EnsurePacket.
     */
    Ptr<Packet> packet;
    RdmaMeta meta; //!< parsed headers (the per-hop fields first), and the switch's inPort

    RdmaQueuedFrame() = default;
    RdmaQueuedFrame(const RdmaQueuedFrame&) = default;
    RdmaQueuedFrame(RdmaQueuedFrame&&) = default;
    ~RdmaQueuedFrame() = default;

    /**
     * Assignment copies only the valid part of the INT stack (RdmaMeta::CopyFrom): moving
     * a frame into a pooled slot writes none of the slot's unused INT lines.
     * \param o the frame \return this frame
     */
    RdmaQueuedFrame& operator=(const RdmaQueuedFrame& o)
    {
        packet = o.packet;
        meta.CopyFrom(o.meta);
        return *this;
    }

    /// \copydoc operator=(const RdmaQueuedFrame&)
    RdmaQueuedFrame& operator=(RdmaQueuedFrame&& o) noexcept
    {
        packet = std::move(o.packet);
        meta.CopyFrom(o.meta);
        return *this;
    }
};

/**
 * \ingroup astra-sim
 * Pooled storage of one frame while it is queued in a device or in flight on a channel.
 * Frames move between queues and links as pointers to slots: no copy per hop, and no
 * allocation once the pool has grown to the peak number of frames alive. Internal to
 * RdmaNetDevice and RdmaChannel. A slot is 64-byte aligned: the frame's packet pointer
 * and the per-hop part of its meta (kind ... sendTimeNs, with the switch's inPort) share
 * the slot's first cache line, so a switch hop, and a host building, receiving or
 * acknowledging the middle packets of a message or an ACK, touch one line of the frame;
 * the end-host part (RdmaMeta::CarriesEndHostFields) fills the second.
 *
 * The pool (like RdmaEventPool's) is process-wide memory, not simulation state: a slot is
 * returned when its frame is delivered or its device / channel is disposed, and a free slot
 * holds no frame (its packet reference is dropped; a frame built or moved into it writes
 * every field it carries: not the end-host part unless CarriesEndHostFields, not the PFC
 * fields unless a PFC frame, not the INT entries past its intHops; nothing reads them).
 * A second simulation in the process reuses the memory and sees nothing of the first.
 */
struct alignas(64) RdmaFrameSlot
{
    RdmaQueuedFrame frame; //!< the frame

    /// \return a slot (frame fields hold stale values except packet, which is null)
    static RdmaFrameSlot* Get();
    /// Return a slot to the pool (drops its packet reference). \param s the slot
    static void Put(RdmaFrameSlot* s);

    /**
     * The slot whose frame is being delivered to an RxHandler right now (set by the
     * channel's reception event). EnqueueFrame() of exactly that frame takes the slot
     * over instead of copying the frame.
     */
    static RdmaFrameSlot* s_receiving;
};

static_assert(offsetof(RdmaFrameSlot, frame) + offsetof(RdmaQueuedFrame, meta) +
                      offsetof(RdmaMeta, immTag) <=
                  64,
              "the packet pointer and the per-hop part of a frame fit the first cache line "
              "of its slot");
static_assert(offsetof(RdmaFrameSlot, frame) + offsetof(RdmaQueuedFrame, meta) +
                      offsetof(RdmaMeta, pfcClassEnable) <=
                  128,
              "the end-host part of a frame fits the second cache line of its slot");

class RdmaNetDevice;

/**
 * \ingroup astra-sim
 * Direct receiver of a device's frames, installed with RdmaNetDevice::SetFrameReceiver.
 * The fabric's own handlers (RdmaSwitch, RdmaHostStack) use it instead of the RxHandler /
 * TxHandler callbacks: one virtual call per frame instead of a Callback chain with Ptr
 * copies. Frames are passed as they are (frame.packet may be null: lazily built RoCE
 * frame, see RdmaNetDevice::EnsurePacket).
 */
class RdmaFrameReceiver
{
  public:
    virtual ~RdmaFrameReceiver() = default;
    /**
     * A frame (not PFC, not dropped) arrived on dev.
     * \param dev the receiving device
     * \param frame the frame (EnqueueFrame(std::move(frame)) forwards it without a copy)
     */
    virtual void ReceiveFrame(RdmaNetDevice* dev, RdmaQueuedFrame& frame) = 0;
    /**
     * dev finished serializing frame (not PFC); called only if the receiver was installed
     * with notifyTx = true.
     * \param dev the sending device
     * \param frame the frame
     */
    virtual void FrameSent(RdmaNetDevice* dev, const RdmaQueuedFrame& frame);
    /**
     * A hint, a few events before frame arrives on dev: prefetch what ReceiveFrame reads
     * first (changes nothing; the default does nothing). Reads only dev's reception lines,
     * the frame's first line and the receiver's own state.
     * \param dev the receiving device
     * \param frame the frame
     */
    virtual void PrefetchFrame(const RdmaNetDevice* dev, const RdmaQueuedFrame& frame) const;
    /**
     * A hint of a window's prefetch (QuadHeapScheduler::kWindowStages), a pass after
     * PrefetchFrame: prefetch what the lines PrefetchFrame fetched lead to (a host: the
     * lines of the frame's QP that ReceiveFrame reads). Changes nothing; the default does
     * nothing.
     * \param dev the receiving device
     * \param frame the frame
     */
    virtual void PrefetchFrameState(const RdmaNetDevice* dev, const RdmaQueuedFrame& frame) const;
};

/**
 * \ingroup astra-sim
 * Supplies data frames to a host NIC port (implemented by the transport).
 */
class RdmaFrameSource
{
  public:
    virtual ~RdmaFrameSource() = default;
    /**
     * Called when the port can start a transmission.
     * \param pausedMask bit p set = priority p is paused by PFC
     * \param frame filled with the frame to send
     * \param nextTry if no frame is returned: when one may be ready (Time::Max() = unknown)
     * \return true if a frame was returned
     */
    virtual bool DequeueFrame(uint8_t pausedMask, RdmaQueuedFrame& frame, Time& nextTry) = 0;
};

/**
 * \ingroup astra-sim
 * RoCEv2 / 802.1Qbb Ethernet port.
 */
class alignas(64) RdmaNetDevice : public NetDevice
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaNetDevice();
    ~RdmaNetDevice() override;

    /// Handler for received frames (after PFC frames were consumed by the device).
    using RxHandler = Callback<void, Ptr<RdmaNetDevice>, RdmaQueuedFrame&>;
    /// Handler told when a frame from a queue finished serialization.
    using TxHandler = Callback<void, Ptr<RdmaNetDevice>, const RdmaQueuedFrame&>;

    bool Attach(Ptr<RdmaChannel> ch); //!< attach to a channel \return success
    /**
     * Set the receive handler.
     * \param h the handler
     * \param usesPacket false if h never reads frame.packet (the fabric's own handlers):
     *        frames built lazily (null packet) are then passed without building their bytes
     */
    void SetRxHandler(RxHandler h, bool usesPacket = true);
    void SetTxHandler(TxHandler h); //!< set the transmit-complete handler
    /**
     * Hand received frames (and, with notifyTx, transmit completions) to r by a direct call
     * instead of the RxHandler (and TxHandler). SetRxHandler / SetTxHandler undo it.
     * \param r the receiver (not owned; null removes it)
     * \param notifyTx also call r->FrameSent instead of the TxHandler
     */
    void SetFrameReceiver(RdmaFrameReceiver* r, bool notifyTx);
    void SetFrameSource(RdmaFrameSource* src); //!< host NICs: data frame source
    /// Tell the device the frame source may have a frame now (wakes an idle port).
    void NotifySourceReady();

    /// Enqueue a frame on its priority's egress queue (meta.priority).
    void EnqueueFrame(RdmaQueuedFrame&& frame);
    /// Send a PFC frame for one priority (quanta 0 = resume); bypasses the data queues.
    void SendPfc(uint8_t priority, uint16_t quanta);

    bool IsPaused(uint8_t priority) const;           //!< \return PFC pause state
    uint8_t GetPausedMask() const;                   //!< \return bit mask of paused priorities
    uint32_t GetQueueBytes(uint8_t priority) const;  //!< \return bytes queued
    uint32_t GetQueueFrames(uint8_t priority) const; //!< \return frames queued
    uint64_t GetTxBytes() const;                     //!< \return frame bytes sent so far
    DataRate GetDataRate() const;                    //!< \return link rate
    Time GetTxTime(uint32_t frameBytes) const; //!< \return serialization time incl. wire overhead
    Ptr<RdmaChannel> GetRdmaChannel() const;   //!< \return the channel
    uint32_t GetPortIndex() const;             //!< \return index on the node (set by the owner)
    void SetPortIndex(uint32_t i);             //!< set port index

    /// Called by RdmaChannel when a frame's last bit arrived.
    void Receive(RdmaQueuedFrame& frame);

    /**
     * A hint, a few events before slot's frame arrives (after PrefetchReceive): prefetch
     * what its receiver reads (changes nothing).
     * \param slot the frame
     */
    void PrefetchReception(const RdmaFrameSlot* slot) const
    {
        if (m_receiver)
        {
            m_receiver->PrefetchFrame(this, slot->frame);
        }
    }

    /**
     * A hint of a window's prefetch, a pass after PrefetchReception: what the receiver's
     * lines it fetched lead to (RdmaFrameReceiver::PrefetchFrameState).
     * \param slot the frame
     */
    void PrefetchReceptionState(const RdmaFrameSlot* slot) const
    {
        if (m_receiver)
        {
            m_receiver->PrefetchFrameState(this, slot->frame);
        }
    }

    /**
     * A hint, a few events before a frame arrives on the device at address dev: prefetch
     * the lines Receive reads. Only adds offsets to dev (taken from the devices built so
     * far) and reads nothing, so dev may be a device that is gone.
     * \param dev the device's address
     */
    static void PrefetchReceiveAt(const void* dev)
    {
        const char* b = static_cast<const char*>(dev);
        __builtin_prefetch(b + s_rxOffset[0]);
        __builtin_prefetch(b + s_rxOffset[1]);
        __builtin_prefetch(b + s_rxOffset[2]);
    }

    /**
     * A hint, shortly before a frame of priority \p prio is enqueued (EnqueueFrame):
     * prefetch the lines it reads (transmission state, queue counters, the queue).
     * \param prio the priority
     */
    void PrefetchEnqueue(uint8_t prio) const
    {
        __builtin_prefetch(&m_channel);
        __builtin_prefetch(&m_queueBytes[0]);
        __builtin_prefetch(&m_queue[prio & 7]);
    }

    /**
     * Build frame.packet from frame.meta if it is null (lazily built RoCE frame):
     * RoceFrame::Build with MACs derived from the IPs, meta.frameBytes unchanged.
     * \param frame the frame
     * \return frame.packet
     */
    static Ptr<Packet> EnsurePacket(RdmaQueuedFrame& frame);

    // NetDevice API (RoCE traffic does not use Send(); it exists for ns-3 compatibility)
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    // ------------------------------------------------------------------ additions

    /// Why a frame was dropped by the device (Drop trace source).
    enum DropReason : uint8_t
    {
        DROP_RX_ERROR = 0,   //!< corrupted by the ReceiveErrorModel
        DROP_NO_HANDLER = 1, //!< received with no RxHandler installed
        DROP_NO_CHANNEL = 2, //!< enqueued on a device without a (complete) channel
    };

    /**
     * Handler called when a frame leaves a queue (or the frame source) and is about
     * to be serialized; it may modify meta (INT push, ECN mark at dequeue).
     */
    using DequeueHandler = Callback<void, Ptr<RdmaNetDevice>, RdmaQueuedFrame&>;
    void SetDequeueHandler(DequeueHandler h); //!< set the dequeue handler

    /// Trace signature of a frame event (MacTx, MacRx).
    using FrameTracedCallback = void (*)(const RdmaQueuedFrame& frame);
    /// Trace signature of a drop.
    using DropTracedCallback = void (*)(const RdmaQueuedFrame& frame, uint8_t reason);
    /// Trace signature of a queue change (Enqueue, Dequeue): priority, bytes now queued.
    using QueueTracedCallback = void (*)(uint8_t priority, uint32_t queueBytes);
    /// Trace signature of a PFC frame (PfcRx, PfcTx): one call per enabled class.
    using PfcTracedCallback = void (*)(uint8_t priority, uint16_t quanta);
    /// Trace signature of pause state changes: priority, paused (true) / resumed (false).
    using PauseTracedCallback = void (*)(uint8_t priority, bool paused);

    void SetDataRate(DataRate rate); //!< set the link rate (> 0)
    uint64_t GetTxFrames() const;    //!< \return frames sent (incl. PFC)
    uint64_t GetRxFrames() const;    //!< \return frames received (incl. PFC, excl. drops)
    uint64_t GetRxBytes() const;     //!< \return frame bytes received
    uint64_t GetDrops() const;       //!< \return frames dropped (all reasons)
    uint64_t GetPfcRxFrames() const; //!< \return PFC frames received
    uint64_t GetPfcTxFrames() const; //!< \return PFC frames sent
    /// \return total time priority p was paused (incl. an ongoing pause) \param p priority
    Time GetPauseTime(uint8_t p) const;
    /// \return the time a pause of priority p expires (past if not paused) \param p priority
    Time GetPauseExpiry(uint8_t p) const;
    bool IsBusy() const; //!< \return true while a frame is being serialized
    /// Set the error model applied to received frames (also attribute ReceiveErrorModel).
    void SetReceiveErrorModel(Ptr<ErrorModel> em);
    /// \return the number of priorities served strictly (ControlPriorities bit mask)
    uint8_t GetControlPriorities() const;

    /**
     * Write a pcap (DLT_EN10MB) of every frame this device sends and receives
     * (file name prefix-NODE-IFINDEX.pcap as ns-3's pcap helpers; with explicitFilename
     * the prefix is the file name).
     * \param prefix file name prefix
     * \param dev the device
     * \param explicitFilename use prefix as the complete file name
     * \return the file (Close() it to flush before reading it during the run)
     */
    static Ptr<PcapFileWrapper> EnablePcap(std::string prefix,
                                           Ptr<RdmaNetDevice> dev,
                                           bool explicitFilename = false);

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    friend class RdmaChannel;
    class TxCompleteEvent; //!< transmit-complete event (defined in the .cc)

    /// Growable ring buffer of frame slots (no allocation per frame once grown).
    class FrameRing
    {
      public:
        bool Empty() const
        {
            return m_size == 0;
        }

        uint32_t Size() const
        {
            return m_size;
        }

        RdmaFrameSlot* Front() const
        {
            return m_buf[m_head];
        }

        /// Prefetch the front entry of the storage (a hint)
        void PrefetchFrontEntry() const
        {
            if (m_size > 0)
            {
                __builtin_prefetch(m_buf.data() + m_head);
            }
        }

        void Push(RdmaFrameSlot* s);
        RdmaFrameSlot* Pop();
        void Clear(); //!< release every slot held

      private:
        std::vector<RdmaFrameSlot*> m_buf; //!< storage (power-of-two size)
        uint32_t m_head{0};                //!< index of the front
        uint32_t m_size{0};                //!< frames held
    };

    void StartNext();                     //!< start serializing the next eligible frame
    void StartTransmit(RdmaFrameSlot* s); //!< begin serialization of s's frame
    void TransmitComplete();              //!< end of serialization
    bool PickDataQueue(uint8_t eligible, uint8_t& prio); //!< DWRR choice among data queues
    RdmaFrameSlot* PopQueue(uint8_t prio);               //!< dequeue with accounting
    void HandlePfc(const RdmaQueuedFrame& f);            //!< react to a received PFC frame
    void Pause(uint8_t p, uint16_t quanta);              //!< pause p for quanta
    void Resume(uint8_t p);                              //!< resume p now
    void PauseExpire(uint8_t p);                         //!< pause timer of p
    void WakeUp();                                       //!< frame source wake-up
    void ScheduleWake(Time at);                          //!< (re)schedule the single wake-up
    uint64_t NextTxTicks(uint32_t frameBytes);           //!< tx time with carry (ticks)
    uint64_t BitTicks(uint64_t bits) const;              //!< floor(bits / rate) in ticks
    void SetDataWeights(std::string s);                  //!< parse DataWeights
    std::string GetDataWeights() const;                  //!< print DataWeights
    void DropFrame(RdmaQueuedFrame& f, DropReason r);    //!< account and trace a drop
    std::string Name() const;                            //!< "node N port P" for messages

    /// offsets of m_receiver, m_macRxTrace and m_portIndex (PrefetchReceiveAt)
    static inline std::ptrdiff_t s_rxOffset[3]{};

    // Members read or written for every frame come first, together, grouped by the event
    // that uses them (the class is 64-byte aligned; NetDevice/Object take the first 32
    // bytes): with thousands of devices the fabric's state does not fit in the caches, and
    // every line a frame touches is a miss. Configuration, PFC state and rarely used trace
    // sources follow. Offsets from the start of the object:

    // reception (Receive): bytes 32-63, and 64-135 with the trace sources it tests (an empty
    // TracedCallback is tested on its first 8 bytes)
    RdmaFrameReceiver* m_receiver{nullptr};                  //!< direct receiver (or null)
    Ptr<ErrorModel> m_receiveErrorModel;                     //!< receive error model
    uint64_t m_rxFrames{0};                                  //!< frames received
    uint64_t m_rxBytes{0};                                   //!< bytes received
    TracedCallback<Ptr<const Packet>> m_snifferTrace;        //!< Sniffer
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace; //!< PromiscSniffer
    TracedCallback<const RdmaQueuedFrame&> m_macRxTrace;     //!< MacRx
    // transmission (StartTransmit, TransmitComplete, StartNext): bytes 136-271
    TracedCallback<const RdmaQueuedFrame&> m_macTxTrace; //!< MacTx
    RdmaFrameSource* m_source{nullptr};                  //!< host frame source
    RdmaFrameSlot* m_current{nullptr}; //!< frame being serialized (owned by its reception
                                       //!< event, which runs after TransmitComplete)
    Ptr<RdmaChannel> m_channel;        //!< link
    uint64_t m_bps{0};                 //!< link rate in bit/s
    uint64_t m_ticksPerSecond{0};      //!< Time resolution ticks per second
    uint64_t m_txCarry{0};             //!< remainder of tx time division (bit*ticks)
    uint64_t m_txFrames{0};            //!< frames sent
    uint64_t m_txBytes{0};             //!< bytes sent
    uint32_t m_contextId{0};           //!< node id (event context)
    uint32_t m_portIndex{0};           //!< port index (owner's numbering)
    uint16_t m_mtu{9000};              //!< IP MTU
    uint8_t m_nonEmpty{0};             //!< bit p = queue p non-empty
    uint8_t m_pausedMask{0};           //!< bit p = priority p paused
    uint8_t m_controlMask{0xC0};       //!< strict priorities
    uint8_t m_dwrrCur{0};              //!< DWRR current priority
    bool m_dwrrTurn{false};            //!< DWRR: quantum already added for this turn
    bool m_busy{false};                //!< serializing
    bool m_selecting{false};           //!< inside StartNext / TxHandler (no re-entry)
    bool m_kick{false};                //!< re-run selection after re-entrant enqueue
    bool m_preferSource{false};        //!< round-robin between frame source and queues
    bool m_pfcPending{false};          //!< a PFC frame waits for the port
    bool m_receiverTx{false};          //!< m_receiver gets FrameSent
    bool m_rxHandlerUsesPacket{true};  //!< build lazy packets before it
    bool m_pfcEnabled{true};           //!< react to received PFC frames
    DequeueHandler m_dequeueHandler;   //!< dequeue handler
    TxHandler m_txHandler;             //!< tx-complete handler
    RxHandler m_rxHandler;             //!< receive handler
    // queues (EnqueueFrame, PopQueue)
    uint32_t m_queueBytes[8]{};                       //!< bytes per priority
    FrameRing m_queue[8];                             //!< per-priority FIFOs
    TracedCallback<uint8_t, uint32_t> m_enqueueTrace; //!< Enqueue
    TracedCallback<uint8_t, uint32_t> m_dequeueTrace; //!< Dequeue
    int64_t m_deficit[8]{};                           //!< DWRR deficits
    uint32_t m_weights[8]{1, 1, 1, 1, 1, 1, 1, 1};    //!< DWRR weights
    uint32_t m_dwrrQuantum{1500};                     //!< DWRR quantum per unit weight (bytes)
    EventId m_wakeEvent;                              //!< frame source wake-up

    // configuration and wiring
    DataRate m_rate;                                     //!< link rate
    Ptr<Node> m_node;                                    //!< node
    uint32_t m_ifIndex{0};                               //!< interface index
    Mac48Address m_address;                              //!< MAC
    bool m_addressSet{false};                            //!< SetAddress was called
    NetDevice::ReceiveCallback m_rxCallback;             //!< unused (ns-3 API)
    NetDevice::PromiscReceiveCallback m_promiscCallback; //!< unused (ns-3 API)
    TracedCallback<> m_linkChange;                       //!< link change callbacks

    // PFC
    RdmaMeta m_pfcMeta;      //!< pending PFC frame contents
    Time m_pauseUntil[8];    //!< expiry per priority
    Time m_pauseStart[8];    //!< start of the current pause
    Time m_pauseTotal[8];    //!< accumulated pause time
    EventId m_pauseEvent[8]; //!< expiry timers

    // counters and trace sources off the per-frame path
    uint64_t m_drops{0};                                         //!< drops
    uint64_t m_pfcRx{0};                                         //!< PFC frames received
    uint64_t m_pfcTx{0};                                         //!< PFC frames sent
    TracedCallback<const RdmaQueuedFrame&, uint8_t> m_dropTrace; //!< Drop
    TracedCallback<uint8_t, uint16_t> m_pfcRxTrace;              //!< PfcRx
    TracedCallback<uint8_t, uint16_t> m_pfcTxTrace;              //!< PfcTx
    TracedCallback<uint8_t, bool> m_pauseTrace;                  //!< PauseState
};

/**
 * \ingroup astra-sim
 * Pcap (DLT_EN10MB) for RdmaNetDevices with ns-3's usual EnablePcap overloads
 * (device, container, node, EnablePcapAll). Devices of other types are skipped.
 * Each file holds the frames the device sent and received (promiscuous or not).
 */
class RdmaPcapHelper : public PcapHelperForDevice
{
  public:
    RdmaPcapHelper() = default;
    ~RdmaPcapHelper() override = default;

  private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;
};

} // namespace ns3

#endif /* RDMA_NET_DEVICE_H */
