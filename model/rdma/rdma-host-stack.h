/*
 * RdmaHostStack: the RoCEv2 RC transport of one host (the NIC's transport
 * engine), aggregated to the Node. It owns the host's RdmaNetDevice ports,
 * implements RdmaFrameSource for each of them (QP scheduling and pacing) and
 * is their RxHandler (data, ACK/NAK, CNP).
 *
 * Usage:
 *   Ptr<RdmaHostStack> s = CreateObject<RdmaHostStack>();
 *   node->AggregateObject(s);
 *   s->SetHostIndex(i); s->SetIpv4(ip);      // normally done by RdmaHelper,
 *   s->SetDirectory(dir);                     // which also registers the stack
 *   s->AddPort(dev);
 *   Ptr<RdmaQueuePair> qp = s->GetOrCreateQp(dstHost, priority, sport, &consumer);
 *   s->PostWrite(qp, bytes, tag);             // completion: consumer / trace sources
 *
 * Connection set-up is out of band (as with RDMA CM): GetOrCreateQp finds the
 * destination host's stack in the fabric's RdmaHostDirectory (by host index),
 * creates both ends and exchanges QP numbers and initial PSNs. The responder
 * learns the user tag, the two user words, length and post time of a message
 * from its last frame (model-only fields of RdmaMeta, the simulator's
 * equivalent of immediate data; real ImmDt: PostWriteImm); everything else (message boundaries,
 * PSNs, ACK/NAK, CNP) is driven by the frames on the wire too: a receiver never reads the sender's
 * objects.
 *
 * Distributed runs (RdmaHostDirectory::SetLocalSystem): a QP to a host on
 * another rank opens this end only, with destination QP 0 in its frames until
 * the peer's QP number arrives in a frame (RdmaMeta::srcQp); the peer's stack
 * opens its end when the first data frame arrives (passive open, like a
 * listening socket: the end's consumer is the stack's listener, SetListener).
 *
 * Per-packet path: no maps, no strings, no allocation except the frame's
 * Packet; QPs with data are kept in a per-port active list served round robin.
 */

#ifndef RDMA_HOST_STACK_H
#define RDMA_HOST_STACK_H

#include "rdma-congestion-ops.h"
#include "rdma-host-directory.h"
#include "rdma-net-device.h"
#include "rdma-queue-pair.h"

#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Transport counters of one host.
 */
struct RdmaHostStats
{
    uint64_t dataPktsSent{0};   //!< data packets sent (incl. retransmissions)
    uint64_t dataBytesSent{0};  //!< payload bytes sent (incl. retransmissions)
    uint64_t retxPkts{0};       //!< data packets sent again (go-back-N / timeout)
    uint64_t dataPktsRcvd{0};   //!< data packets received (any order)
    uint64_t outOfOrderPkts{0}; //!< data packets dropped as out of order
    uint64_t dupPkts{0};        //!< duplicate data packets (already accepted)
    uint64_t acksSent{0};       //!< ACKs sent
    uint64_t acksRcvd{0};       //!< ACKs received
    uint64_t naksSent{0};       //!< NAKs sent
    uint64_t naksRcvd{0};       //!< NAKs received
    uint64_t cnpsSent{0};       //!< CNPs sent
    uint64_t cnpsRcvd{0};       //!< CNPs received
    uint64_t timeouts{0};       //!< retransmission timeouts
    uint64_t msgsSent{0};       //!< messages acknowledged (sender completions)
    uint64_t msgsRcvd{0};       //!< messages received (receiver completions)
    uint64_t unknownQp{0};      //!< frames for an unknown QP (dropped)
    uint64_t notForMe{0};       //!< frames for another host without a transit forwarder
};

/**
 * \ingroup astra-sim
 * RoCEv2 RC transport of one host.
 */
class RdmaSwitch;

class RdmaHostStack : public Object, public RdmaFrameReceiver
{
  public:
    /// Trace signature of RxMessageComplete / TxMessageComplete.
    typedef void (*MessageTracedCallback)(const RdmaMessageInfo& info);
    /// Trace signature of QpRateChange: host, local qpn, old and new rate (bit/s).
    typedef void (*RateTracedCallback)(uint32_t host,
                                       uint32_t qpn,
                                       uint64_t oldBps,
                                       uint64_t newBps);
    /// Trace signature of CnpSent / CnpReceived: host, local qpn.
    typedef void (*QpTracedCallback)(uint32_t host, uint32_t qpn);
    /// Trace signature of NakSent / NakReceived: host, local qpn, PSN.
    typedef void (*PsnTracedCallback)(uint32_t host, uint32_t qpn, uint32_t psn);
    /// Trace signature of Timeout: host, local qpn, snd_una (bytes).
    typedef void (*TimeoutTracedCallback)(uint32_t host, uint32_t qpn, uint64_t sndUna);

    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaHostStack();
    ~RdmaHostStack() override;

    /// Attach a NIC port; installs this stack as the port's RxHandler and FrameSource.
    void AddPort(Ptr<RdmaNetDevice> dev);
    uint32_t GetNPorts() const;                   //!< \return number of ports
    Ptr<RdmaNetDevice> GetPort(uint32_t i) const; //!< \return port i

    /// Set the host index (unique in its fabric; re-registers the stack in its directory).
    void SetHostIndex(uint32_t index);
    uint32_t GetHostIndex() const; //!< \return host index
    void SetIpv4(Ipv4Address ip);  //!< set the host's IPv4 address
    Ipv4Address GetIpv4() const;   //!< \return the IPv4 address (default 11.0.0.0 + index + 1)

    /**
     * Join a fabric's directory (leaving the previous one): GetOrCreateQp finds
     * peers there. Set the host index first. RdmaHelper::InstallHosts does both.
     * \param directory the directory (nullptr: none)
     */
    void SetDirectory(Ptr<RdmaHostDirectory> directory);
    Ptr<RdmaHostDirectory> GetDirectory() const; //!< \return the directory (nullptr if none)

    /**
     * Get (or create and connect) the persistent QP to a host. A new
     * connection's two ends get \p consumer; an existing QP keeps its own
     * (asking for it with a different non-null consumer is an error).
     * \param dstHost destination host index (its stack must be in this stack's directory)
     * \param priority data priority (255 = attribute DataPriority)
     * \param sport UDP source port (0 = pick one deterministically)
     * \param consumer receiver of both ends' completions (nullptr: trace sources only)
     * \return the QP
     */
    Ptr<RdmaQueuePair> GetOrCreateQp(uint32_t dstHost,
                                     uint8_t priority = 255,
                                     uint16_t sport = 0,
                                     RdmaQpConsumer* consumer = nullptr);
    /**
     * Set the consumer of QP ends opened passively by a peer on another rank
     * (distributed runs; see the class description). nullptr: trace sources only.
     * \param consumer the consumer (not owned)
     */
    void SetListener(RdmaQpConsumer* consumer);
    RdmaQpConsumer* GetListener() const; //!< \return the listener (nullptr if none)

    /// \return the QP with a local QP number (nullptr if none)
    Ptr<RdmaQueuePair> GetQp(uint32_t qpn) const;
    uint32_t GetNQps() const; //!< \return QPs on this host
    /**
     * \param i 0 .. GetNQps() - 1: the QPs this host opened, then the responder ends
     * (opened by peers; QP numbers from 2^23)
     * \return the QP
     */
    Ptr<RdmaQueuePair> GetQpByIndex(uint32_t i) const;

    /**
     * Post an RDMA WRITE of bytes (may exceed 4 GiB) on a QP. The user tag and the
     * two user words travel in the message's last frame (model-only, not on the
     * wire): the responder's RxComplete reports them (RdmaMessageInfo::tag, user,
     * user2).
     * \param qp the QP \param bytes payload bytes \param userTag user tag
     * \param user first user word \param user2 second user word
     * \return the message id (per-QP sequence number)
     */
    uint64_t PostWrite(Ptr<RdmaQueuePair> qp,
                       uint64_t bytes,
                       uint64_t userTag,
                       uint64_t user = 0,
                       uint64_t user2 = 0);
    /**
     * Post an RDMA WRITE with immediate data to a remote address: its first
     * frame's RETH names \p remoteAddr (instead of the QP's stream offset)
     * and its last frame is a WRITE Last / Only with Immediate carrying \p imm
     * (ImmDt), which the responder's RxComplete reports (RdmaMessageInfo::imm).
     * \param qp the QP
     * \param bytes payload bytes
     * \param userTag user tag
     * \param imm immediate data
     * \param remoteAddr RETH virtual address
     * \return the message id
     */
    uint64_t PostWriteImm(Ptr<RdmaQueuePair> qp,
                          uint64_t bytes,
                          uint64_t userTag,
                          uint32_t imm,
                          uint64_t remoteAddr);
    /// Post a SEND (same transport path, SEND opcodes; user words as PostWrite).
    /// \return the message id
    uint64_t PostSend(Ptr<RdmaQueuePair> qp,
                      uint64_t bytes,
                      uint64_t userTag,
                      uint64_t user = 0,
                      uint64_t user2 = 0);
    /**
     * Post an RDMA READ of bytes (at most 2^32 - 1: the RETH length is 32-bit) from the
     * remote host; completes at this host when the last response byte arrives.
     * \return the message id
     */
    uint64_t PostRead(Ptr<RdmaQueuePair> qp, uint64_t bytes, uint64_t userTag);

    /// Set the congestion-control template forked for every new QP (overrides the attribute).
    void SetCongestionControl(Ptr<RdmaCongestionOps> cc);
    /**
     * Set the template forked for new QPs of one priority (overrides the attributes
     * CongestionControl and CongestionControlByPriority for that priority).
     * \param priority data priority 0..7
     * \param cc the template (nullptr = back to the attributes)
     */
    void SetCongestionControl(uint8_t priority, Ptr<RdmaCongestionOps> cc);
    /// \return the template forked for new QPs of a priority \param priority 0..7
    Ptr<RdmaCongestionOps> GetCongestionControl(uint8_t priority);

    const RdmaHostStats& GetStats() const; //!< \return counters
    uint32_t GetMtu() const;               //!< \return payload bytes per packet

    /**
     * Check the attribute values (and those of the CC template).
     * \return an empty string if valid, else a readable description
     */
    std::string Validate();

    /// Wire bytes of a data frame with this payload (headers + ICRC + FCS + preamble + IFG).
    static uint32_t DataWireBytes(uint32_t payload, bool first);

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    struct Port;

    /// RdmaFrameSource adapter for one port.
    class PortSource : public RdmaFrameSource
    {
      public:
        PortSource(RdmaHostStack* s, uint32_t p)
            : m_stack(s),
              m_port(p)
        {
        }

        bool DequeueFrame(uint8_t pausedMask, RdmaQueuedFrame& frame, Time& nextTry) override;

      private:
        RdmaHostStack* m_stack;
        uint32_t m_port;
    };

    struct Port
    {
        Ptr<RdmaNetDevice> dev;
        std::unique_ptr<PortSource> source;
        std::vector<RdmaQueuePair*> active; //!< QPs with data to send
        size_t rr{0};                       //!< round-robin cursor
        uint64_t lineRate{0};               //!< bit/s
    };

    bool Dequeue(uint32_t port, uint8_t pausedMask, RdmaQueuedFrame& frame, Time& nextTry);
    void ReceiveFrame(RdmaNetDevice* dev, RdmaQueuedFrame& frame) override; //!< device Rx
    void PrefetchFrame(const RdmaNetDevice* dev,
                       const RdmaQueuedFrame& frame) const override; //!< hint
    void PrefetchFrameState(const RdmaNetDevice* dev,
                            const RdmaQueuedFrame& frame) const override; //!< hint
    /// \param qpn a QP number (requester or responder end) \return its table entry, or null
    const Ptr<RdmaQueuePair>* QpEntry(uint32_t qpn) const;
    void HandleData(RdmaQueuePair* qp, const RdmaMeta& meta);
    void HandleAck(RdmaQueuePair* qp, const RdmaMeta& meta);
    void HandleCnp(RdmaQueuePair* qp, const RdmaMeta& meta);
    void SendAck(RdmaQueuePair* qp, const RdmaMeta& data, bool nak);
    void SendCnp(RdmaQueuePair* qp);
    void BuildData(RdmaQueuePair* qp, RdmaQueuedFrame& frame, uint64_t nowPs);
    void Pace(RdmaQueuePair* qp, uint32_t frameBytes, uint64_t nowPs);
    uint32_t BuildReadResponse(RdmaQueuePair* qp, RdmaQueuedFrame& frame, uint64_t nowPs);
    void HandleReadRequest(RdmaQueuePair* qp, const RdmaMeta& meta, int32_t d);
    /// RdmaQpResponder: hold the QP until the next READ response packet's data is ready
    void GateReadResponse(RdmaQueuePair* qp);
    void HandleReadResponse(RdmaQueuePair* qp, const RdmaMeta& meta);
    void AckUpTo(RdmaQueuePair* qp, uint64_t ackPkt, const RdmaMeta& meta);
    void MaybeCnp(RdmaQueuePair* qp, const RdmaMeta& meta);
    void SetSndNxt(RdmaQueuePair* qp, uint64_t pkt);
    void Activate(RdmaQueuePair* qp);
    void RtoExpire(RdmaQueuePair* qp);
    Time CurrentRto(const RdmaQueuePair* qp) const;
    uint64_t Post(Ptr<RdmaQueuePair> qp,
                  uint64_t bytes,
                  uint64_t tag,
                  RdmaMsgKind kind,
                  uint64_t user,
                  uint64_t user2,
                  bool withImm = false,
                  uint32_t imm = 0,
                  uint64_t remoteAddr = 0);
    /// open the responder end for a data frame with destination QP 0 (peer on another rank)
    RdmaQueuePair* PassiveOpen(const RdmaMeta& meta);
    void RateChanged(RdmaQueuePair* qp, uint64_t oldBps, uint64_t newBps);
    static void RateChangedThunk(RdmaHostStack* s,
                                 RdmaQueuePair* qp,
                                 uint64_t oldBps,
                                 uint64_t newBps);
    Ptr<RdmaQueuePair> NewQp(uint32_t remoteHost,
                             uint8_t priority,
                             uint16_t sport,
                             bool responder = false);
    void EnsureValid();
    RdmaMessageInfo MakeInfo(const RdmaQueuePair* requester, const RdmaMessage& m) const;

    // attributes
    uint32_t m_mtu{1000};
    TypeId m_ccTypeId;
    std::string m_ccByPrioStr; //!< CongestionControlByPriority
    uint64_t m_window{0};
    uint32_t m_ackInterval{1};
    uint64_t m_ackIntervalBytes{0};
    uint8_t m_dataPriority{3};
    uint8_t m_ackPriority{7};
    uint8_t m_cnpPriority{7};
    Time m_cnpInterval;
    Time m_rto;
    uint32_t m_rtoMaxBackoff{6};
    uint32_t m_initialPsn{0};
    Time m_baseRtt;

    // state
    Ptr<Node> m_node;
    uint32_t m_hostIndex{0};
    bool m_indexSet{false};
    uint32_t m_ip{0};
    uint32_t m_ipCache{0};              //!< GetIpv4() cached for the receive path
    Ptr<RdmaHostDirectory> m_directory; //!< the fabric's stacks by host index
    Ptr<RdmaSwitch> m_fwd; //!< transit forwarder (switch-less topologies), found lazily
    bool m_validated{false};
    Ptr<RdmaCongestionOps> m_ccTemplate;
    Ptr<RdmaCongestionOps> m_ccByPrio[8]; //!< per-priority templates (null = m_ccTemplate)
    bool m_ccByPrioSet[8]{};              //!< set by SetCongestionControl(priority, cc)
    std::vector<std::unique_ptr<Port>> m_ports;
    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< by qpn - kQpnBase
    /// responder ends (opened by the peer's GetOrCreateQp or PassiveOpen), by qpn -
    /// kResponderQpnBase: the QP numbers of the ends this host opens do not depend on
    /// when peers open theirs (the same in one process and on any number of MPI ranks)
    std::vector<Ptr<RdmaQueuePair>> m_responderQps;
    std::unordered_map<uint64_t, RdmaQueuePair*> m_qpByKey; //!< set-up only
    RdmaQpConsumer* m_listener{nullptr};                    //!< consumer of passively opened ends
    uint32_t m_sportCounter{0};
    RdmaHostStats m_stats;
    std::vector<RdmaMessageInfo> m_doneScratch; //!< completions of one ACK

    // trace sources
    TracedCallback<const RdmaMessageInfo&> m_rxMsgTrace;
    TracedCallback<const RdmaMessageInfo&> m_txMsgTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t, uint64_t> m_rateTrace;
    TracedCallback<uint32_t, uint32_t> m_cnpSentTrace;
    TracedCallback<uint32_t, uint32_t> m_cnpRcvdTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_nakSentTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_nakRcvdTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_timeoutTrace;
};

} // namespace ns3

#endif /* RDMA_HOST_STACK_H */
