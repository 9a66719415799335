/*
 * RdmaSwitch: packet-level RoCEv2 switch logic, aggregated to an ns3::Node
 * whose ports are RdmaNetDevices. Per frame (store-and-forward, no extra
 * events): forwarding-table lookup by destination host index + ECMP,
 * SwitchMmu admission (PFC dynamic threshold, headroom), ECN marking by the
 * switch's RdmaEcnMarker (rdma-ecn-marker.h: RED by default, at enqueue or at
 * dequeue), enqueue on the egress device. When the egress device
 * finished sending a frame the MMU is released and PFC resume is sent when
 * the ingress queue drained. Per-priority egress scheduling and PFC reaction
 * are the device's job.
 */

#ifndef RDMA_SWITCH_H
#define RDMA_SWITCH_H

#include "rdma-ecn-marker.h"
#include "rdma-forwarding-table.h"
#include "switch-mmu.h"

#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-meta.h"
#include "ns3/rdma-net-device.h"
#include "ns3/traced-callback.h"

#include <array>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * RoCEv2 switch: forwarding, ECMP, shared-buffer MMU with PFC, ECN, INT.
 */
class RdmaSwitch : public Object, public RdmaFrameReceiver
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaSwitch();
    ~RdmaSwitch() override;

    /// Kmin / Kmax attribute value meaning "not set: the marker's own value applies".
    static constexpr uint32_t kUnsetBytes = 0xFFFFFFFFu;

    /// Tag OR-ed into RdmaQueuedFrame::inPort of frames queued by a transit forwarder.
    static constexpr uint32_t kTransitTag = 0x80000000u;
    /// RdmaQueuedFrame::inPort of queued frames: port | ingress priority << 24 | tag.
    static constexpr uint32_t kInPrioShift = 24;
    static constexpr uint32_t kInPortMask = 0x00FFFFFFu; //!< port bits of inPort

    /**
     * Add a port. The device must already be attached to its channel (its
     * rate and the channel's "Delay" size the PFC headroom). Sets the
     * device's port index and (for a switch) its Rx and Tx handlers.
     * \param dev the device
     * \return the port index
     */
    uint32_t AddPort(Ptr<RdmaNetDevice> dev);
    uint32_t GetNPorts() const;                   //!< \return number of ports
    Ptr<RdmaNetDevice> GetPort(uint32_t i) const; //!< \return port device

    Ptr<SwitchMmu> GetMmu() const;                       //!< \return the MMU
    Ptr<RdmaForwardingTable> GetForwardingTable() const; //!< \return the table
    void SetForwardingTable(Ptr<RdmaForwardingTable> t); //!< replace the table

    /**
     * Use this marker (instead of one created from the EcnMarker attribute);
     * call before the first AddPort. Each switch needs its own marker object.
     * The switch's Kmin / Kmax / Pmax / EcnAtDequeue, where set, are applied
     * to it (astra::InputError if it has no such attribute or its values are
     * invalid); its attributes are read when each port is added.
     * \param marker the marker
     */
    void SetEcnMarker(Ptr<RdmaEcnMarker> marker);
    /// \return the marker (created from the attributes if none was set)
    Ptr<RdmaEcnMarker> GetEcnMarker();

    /**
     * Override the ECN thresholds of one egress port (the marker's
     * SetThresholds; throws astra::InputError if invalid).
     * \param port port index
     * \param kminBytes Kmin
     * \param kmaxBytes Kmax
     * \param pmax Pmax
     */
    void SetEcnThresholds(uint32_t port, uint32_t kminBytes, uint32_t kmaxBytes, double pmax);
    /// \return ECN thresholds of a port (the marker's)
    RdmaEcnConfig GetEcnThresholds(uint32_t port) const;

    /**
     * Re-tag frames of priority fromPrio that leave through port as toPrio
     * (bytes and meta). Used for dateline classes that break the cyclic
     * buffer dependency of rings under PFC (RdmaRoutingHelper::SetDateline).
     * The ingress accounting and PFC stay on the arrival priority.
     * \param port egress port
     * \param fromPrio priority on arrival
     * \param toPrio priority on departure
     */
    void SetPriorityRemap(uint32_t port, uint8_t fromPrio, uint8_t toPrio);
    /// \return departure priority of prio frames leaving port \param port port \param prio prio
    uint8_t GetPriorityRemap(uint32_t port, uint8_t prio) const;

    /**
     * The switch's marking decision for a frame at queue length q (its
     * marker, with the switch's random stream). Counts nothing.
     * \param port egress port
     * \param qBytes queue length
     * \param prio egress priority
     * \return true to mark
     */
    bool ShouldMark(uint32_t port, uint64_t qBytes, uint8_t prio = 0);

    /**
     * Assign the stream of the ECN random variable.
     * \param stream first stream
     * \return streams used (kStreamsUsed)
     */
    int64_t AssignStreams(int64_t stream);
    /// random streams AssignStreams takes
    static constexpr int64_t kStreamsUsed = 1;

    /**
     * Receive path: route, admit, mark, enqueue on the egress port. Called by
     * the devices' Rx handler on a switch, by the host stack on a forwarding host.
     * \param inDev ingress device
     * \param frame the frame (moved into the egress queue)
     */
    void Forward(Ptr<RdmaNetDevice> inDev, RdmaQueuedFrame& frame);

    /**
     * A frame left an egress port: release MMU accounting, maybe resume PFC.
     * \param dev egress device
     * \param frame the frame
     * \return true if the frame was queued by this object
     */
    bool NotifyTxComplete(Ptr<RdmaNetDevice> dev, const RdmaQueuedFrame& frame);

    /// \return name used in messages ("switch <node id>")
    std::string GetName() const;

    uint64_t GetForwarded() const;     //!< \return frames forwarded
    uint64_t GetDrops() const;         //!< \return lossy drops (incl. no-route)
    uint64_t GetLosslessDrops() const; //!< \return lossless drops (bugs)
    uint64_t GetEcnMarks() const;      //!< \return CE marks
    uint64_t GetPausesSent() const;    //!< \return PFC pause frames sent (incl. refreshes)
    uint64_t GetResumesSent() const;   //!< \return PFC resume frames sent
    /// \return ingress (port, priority) queues found paused longer than PfcWatchdog
    uint64_t GetPfcWatchdogEvents() const;
    uint64_t GetMaxQueueBytes(uint32_t port) const; //!< \return peak egress bytes of a port

    /// Queue trace: node id, port, priority, egress (port, priority) bytes.
    typedef void (*QueueTracedCallback)(uint32_t node, uint32_t port, uint8_t prio, uint64_t bytes);
    /// PFC trace: node id, port, priority.
    typedef void (*PfcTracedCallback)(uint32_t node, uint32_t port, uint8_t prio);
    /// Drop trace: node id, ingress port, priority, headers.
    typedef void (*DropTracedCallback)(uint32_t node,
                                       uint32_t port,
                                       uint8_t prio,
                                       const RdmaMeta& meta);

  protected:
    void DoInitialize() override;
    void DoDispose() override;
    void NotifyNewAggregate() override;

    /**
     * INT hook, called when IntEnabled for each forwarded frame when it leaves
     * the egress queue (device dequeue handler, before serialization). The
     * default appends an IntHop (now, port tx bytes so far, egress port queue
     * bytes behind the frame, link rate) if the stack has room.
     * \param port egress port
     * \param meta the frame's headers
     */
    virtual void AddIntHop(uint32_t port, RdmaMeta& meta);

    /// true: set Rx/Tx handlers on added ports (switch); false: caller drives (host)
    bool m_ownsHandlers{true};
    /// OR-ed into frame.meta.inPort of queued frames
    uint32_t m_inPortTag{0};
    /// "switch" or "host"
    std::string m_kind{"switch"};

  private:
    void ReceiveFrame(RdmaNetDevice* dev, RdmaQueuedFrame& frame) override; //!< direct Rx
    void PrefetchFrame(const RdmaNetDevice* dev,
                       const RdmaQueuedFrame& frame) const override; //!< hint
    void PrefetchFrameState(const RdmaNetDevice* dev,
                            const RdmaQueuedFrame& frame) const override;      //!< hint
    void FrameSent(RdmaNetDevice* dev, const RdmaQueuedFrame& frame) override; //!< direct Tx
    void ForwardFrom(uint32_t inPort, RdmaQueuedFrame& frame);      //!< Forward by ingress port
    bool TxCompleteOn(uint32_t out, const RdmaQueuedFrame& frame);  //!< NotifyTxComplete by port
    void OnDequeue(Ptr<RdmaNetDevice> dev, RdmaQueuedFrame& frame); //!< device dequeue handler
    bool NeedDequeueHook() const;                              //!< INT or ECN at dequeue enabled
    void SendPause(uint32_t port, uint8_t prio, bool refresh); //!< pause upstream of (port, prio)
    void RefreshPause(uint32_t port, uint8_t prio);            //!< refresh while congested
    void SendResume(uint32_t port, uint8_t prio);              //!< resume upstream
    void MarkCe(RdmaQueuedFrame& frame);                       //!< set CE in bytes and meta
    uint32_t NodeId() const;                                   //!< node id (or 0)
    void EnsureMarker();      //!< create the marker from the attributes if none was set
    void UpdateMarkerHooks(); //!< the marking points (enqueue / dequeue) from the attributes

    std::vector<Ptr<RdmaNetDevice>> m_ports;     //!< ports
    Ptr<RdmaEcnMarker> m_marker;                 //!< ECN marking policy
    RdmaEcnMarker* m_enqMarker{nullptr};         //!< m_marker if it marks at enqueue (ECN on)
    RdmaEcnMarker* m_deqMarker{nullptr};         //!< m_marker if it marks at dequeue (ECN on)
    std::vector<std::array<uint8_t, 8>> m_remap; //!< priority re-tag per egress port
    std::vector<bool> m_remapPorts;              //!< port has a re-tag
    std::vector<EventId> m_refresh;              //!< pause refresh per (port, prio)
    std::vector<Time> m_pauseStart;              //!< start of the current pause per (port, prio)
    std::vector<bool> m_watchdogFired;           //!< watchdog reported this pause
    Ptr<SwitchMmu> m_mmu;                        //!< MMU
    Ptr<RdmaForwardingTable> m_table;            //!< forwarding table
    Ptr<UniformRandomVariable> m_rng;            //!< ECN randomness
    uint32_t m_nodeId{0};                        //!< node id

    // attributes
    bool m_ecnEnabled;        //!< mark ECN
    TypeId m_markerType;      //!< EcnMarker
    bool m_ecnAtDequeue;      //!< EcnAtDequeue (sets the marker's AtDequeue when true)
    uint32_t m_kmin;          //!< Kmin alias (kUnsetBytes: the marker's own)
    uint32_t m_kmax;          //!< Kmax alias (kUnsetBytes: the marker's own)
    double m_pmax;            //!< Pmax alias (negative: the marker's own)
    bool m_intEnabled;        //!< INT on
    uint16_t m_pauseQuanta;   //!< quanta of PAUSE frames
    double m_refreshFraction; //!< refresh after this fraction of the pause time
    Time m_pfcWatchdog;       //!< report pauses longer than this (0: off)

    // counters
    uint64_t m_forwarded{0};      //!< frames forwarded
    uint64_t m_drops{0};          //!< lossy drops
    uint64_t m_losslessDrops{0};  //!< lossless drops
    uint64_t m_marks{0};          //!< ECN marks
    uint64_t m_pauses{0};         //!< pause frames sent
    uint64_t m_resumes{0};        //!< resume frames sent
    uint64_t m_watchdogEvents{0}; //!< PFC watchdog reports

    TracedCallback<uint32_t, uint32_t, uint8_t, uint64_t> m_enqueueTrace;     //!< enqueue
    TracedCallback<uint32_t, uint32_t, uint8_t, uint64_t> m_dequeueTrace;     //!< dequeue
    TracedCallback<uint32_t, uint32_t, uint8_t, uint64_t> m_ecnTrace;         //!< ECN mark
    TracedCallback<uint32_t, uint32_t, uint8_t> m_pauseTrace;                 //!< PFC pause sent
    TracedCallback<uint32_t, uint32_t, uint8_t> m_watchdogTrace;              //!< PFC watchdog
    TracedCallback<uint32_t, uint32_t, uint8_t> m_resumeTrace;                //!< PFC resume sent
    TracedCallback<uint32_t, uint32_t, uint8_t, const RdmaMeta&> m_dropTrace; //!< drop
    TracedCallback<uint32_t, uint32_t, uint8_t, const RdmaMeta&> m_losslessDropTrace; //!< bug
};

} // namespace ns3

#endif /* RDMA_SWITCH_H */
