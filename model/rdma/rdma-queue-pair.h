/*
 * RdmaQueuePair: one end of a reliable-connected (RC) RoCEv2 queue pair.
 *
 * A QP is persistent per (remote host, priority, UDP source port) and carries
 * a FIFO of messages (WRITE or SEND). Both directions of an RC connection
 * live in the same object: the requester state (messages posted here, PSNs,
 * snd_una/snd_nxt, pacing, retransmission timer, congestion control) and the
 * responder state (expected PSN, ACK coalescing, NAK-once-per-gap, CNP
 * pacing) for data arriving from the peer QP.
 *
 * Counters: packets are numbered with a 64-bit index from 0 (plus the
 * InitialPsn offset); the 24-bit BTH PSN is the low 24 bits of
 * (InitialPsn + index). Byte offsets (snd_una / snd_nxt) are 64-bit, so
 * messages and streams beyond 4 GiB are exact. PSN comparisons on received
 * PSNs are modulo 2^24 (PsnDiff).
 *
 * All transport logic runs in RdmaHostStack; this class holds the state and
 * offers read-only accessors to users and tests.
 *
 * Completions go to the QP's RdmaQpConsumer (set when the connection is made,
 * RdmaHostStack::GetOrCreateQp, or later with SetConsumer), like a socket's
 * callbacks: every user of a host stack (the RoCE backend, background traffic,
 * a memory server) owns its QPs and sees only their completions. The host
 * stack's trace sources (TxMessageComplete, RxMessageComplete) still report
 * every message of the host.
 */

#ifndef RDMA_QUEUE_PAIR_H
#define RDMA_QUEUE_PAIR_H

#include "rdma-congestion-ops.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <deque>

namespace ns3
{

class RdmaHostStack;

/// 24-bit PSN arithmetic.
namespace RdmaPsn
{
constexpr uint32_t kMask = 0xFFFFFF; //!< PSN mask
constexpr uint32_t kHalf = 0x800000; //!< half the PSN space

/// \return (a - b) mod 2^24 as a signed value in [-2^23, 2^23)
inline int32_t
Diff(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & kMask;
    return d >= kHalf ? int32_t(d) - int32_t(1u << 24) : int32_t(d);
}

/// \return PSN of 64-bit packet index idx for a QP whose first PSN is base
inline uint32_t
FromIndex(uint64_t idx, uint32_t base)
{
    return uint32_t((idx + base) & kMask);
}

/**
 * Unwrap a 24-bit PSN to the 64-bit index nearest to a reference index.
 * \param psn received PSN
 * \param refIdx a 64-bit index known to be within 2^23 packets of the answer
 * \param base the QP's initial PSN
 * \return the 64-bit index (may be < 0 cast if psn precedes index 0: caller checks)
 */
inline int64_t
ToIndex(uint32_t psn, uint64_t refIdx, uint32_t base)
{
    return int64_t(refIdx) + Diff(psn, FromIndex(refIdx, base));
}
} // namespace RdmaPsn

/// Message kinds the requester can post.
enum class RdmaMsgKind : uint8_t
{
    WRITE = 0, //!< RDMA WRITE (RETH on First/Only); completes at the responder on the last byte
    SEND = 1,  //!< SEND
    /**
     * RDMA READ: one READ Request (RETH with the length) that consumes as many PSNs as
     * response packets; the responder streams READ Response First/Middle/Last/Only (AETH
     * on First/Last/Only) back on those PSNs, paced by its own QP's congestion control.
     * The responses are the acknowledgement; a gap in them makes the requester re-issue
     * the READ for the remainder (go-back-N), as does the RTO. Completion (both
     * RxMessageComplete and TxMessageComplete) is at the requester when the last
     * response byte arrives.
     */
    READ = 2,
};

/**
 * \ingroup astra-sim
 * One message queued on a QP (requester side).
 */
struct RdmaMessage
{
    uint64_t msgId{0};                    //!< per-QP sequence number (0, 1, 2, ...)
    uint64_t tag{0};                      //!< user tag
    uint64_t user{0};                     //!< first user word (delivered with the message)
    uint64_t user2{0};                    //!< second user word
    uint64_t bytes{0};                    //!< payload bytes
    uint64_t firstPkt{0};                 //!< 64-bit index of its first packet
    uint64_t nPkts{0};                    //!< packets (>= 1; a 0-byte message is one empty packet)
    uint64_t startByte{0};                //!< byte offset of its first byte in the QP's stream
    Time postTime{0};                     //!< when posted
    RdmaMsgKind kind{RdmaMsgKind::WRITE}; //!< WRITE, SEND or READ
    uint64_t respRcvd{0};                 //!< READ: response packets received in order
    bool withImm{false};                  //!< WRITE with immediate data (PostWriteImm)
    uint32_t imm{0};                      //!< the immediate data
    uint64_t remoteAddr{0};               //!< WRITE with immediate: the RETH address
};

/**
 * \ingroup astra-sim
 * Completion record handed to trace sources and message callbacks.
 */
struct RdmaMessageInfo
{
    uint32_t srcHost{0};                  //!< requester host index
    uint32_t dstHost{0};                  //!< responder host index
    uint32_t srcQp{0};                    //!< requester QP number
    uint32_t dstQp{0};                    //!< responder QP number
    uint16_t sport{0};                    //!< UDP source port
    uint16_t dport{4791};                 //!< UDP destination port
    uint8_t priority{0};                  //!< data priority
    uint64_t msgId{0};                    //!< per-QP message sequence number
    uint64_t tag{0};                      //!< user tag
    uint64_t user{0};                     //!< first user word posted with the message
    uint64_t user2{0};                    //!< second user word
    uint64_t bytes{0};                    //!< payload bytes
    Time start{0};                        //!< post time at the requester
    Time end{0};                          //!< completion time
    RdmaMsgKind kind{RdmaMsgKind::WRITE}; //!< READ: data flowed from dstHost to srcHost
    bool hasImm{false}; //!< it carried immediate data (at the responder: as the frame did)
    uint32_t imm{0};    //!< the immediate data (ImmDt)
};

class RdmaQueuePair;

/**
 * \ingroup astra-sim
 * Receiver of the completions of the QPs it owns (plain virtual calls, no
 * callback object per message). A consumer is set on both ends of a
 * connection when it is made (RdmaHostStack::GetOrCreateQp), or on one end
 * with RdmaQueuePair::SetConsumer; a QP without a consumer reports only to the
 * host stack's trace sources. The consumer must outlive its QPs or detach
 * (SetConsumer(nullptr)). A call may post new messages (re-entrantly).
 */
class RdmaQpConsumer
{
  public:
    virtual ~RdmaQpConsumer();

    /**
     * A WRITE or SEND posted on \p qp was fully acknowledged (requester side).
     * \param qp the requester QP
     * \param info the message (end = now)
     */
    virtual void TxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info);

    /**
     * The last byte of a WRITE or SEND arrived at the responder, in order
     * (called for the responder-side QP, whose consumer may differ from the
     * requester's).
     * \param qp the responder QP
     * \param info the message as posted at the requester (tag, post time; end = now)
     */
    virtual void RxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info);

    /**
     * The last response byte of an RDMA READ posted on \p qp arrived (requester
     * side; the READ is complete, no separate TxComplete follows).
     * \param qp the requester QP
     * \param info the message (kind READ; data flowed from info.dstHost; end = now)
     */
    virtual void ReadComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info);
};

/**
 * \ingroup astra-sim
 * When the response data of an RDMA READ may leave the responder, as a
 * responder (RdmaQpResponder) decides it: byte k (0-based) of the response is
 * ready at start + (k + 1) x psPerByte, and a response packet leaves no
 * earlier than its last byte is ready.
 */
struct RdmaReadGate
{
    Time start{0};       //!< when the first byte starts being ready (absolute; past = now)
    double psPerByte{0}; //!< the responder's data rate in ps per byte (0: no limit)
};

/**
 * \ingroup astra-sim
 * The serving side of a QP end (a memory server): told of the requests that
 * arrive, it decides when READ response data is ready (RdmaReadGate) and
 * learns when a WRITE starts to arrive. Set on the responder end with
 * RdmaQueuePair::SetResponder; a QP without one (the default) responds at
 * once, at no cost per packet. Calls are made in PSN order, also for a READ
 * re-issued after a lost response (it is served again).
 */
class RdmaQpResponder
{
  public:
    virtual ~RdmaQpResponder();

    /**
     * A READ request arrived in order at the responder end \p qp.
     * \param qp the responder QP
     * \param bytes bytes to return
     * \return when the response data is ready
     */
    virtual RdmaReadGate ReadRequested(RdmaQueuePair& qp, uint64_t bytes) = 0;

    /**
     * The first packet of a WRITE arrived in order at \p qp (its completion
     * follows as RdmaQpConsumer::RxComplete when the last byte arrives).
     * \param qp the responder QP
     * \param bytes the WRITE's length (RETH)
     */
    virtual void WriteStarted(RdmaQueuePair& qp, uint64_t bytes) = 0;
};

/**
 * \ingroup astra-sim
 * One RC queue pair end (state only; logic in RdmaHostStack).
 */
class RdmaQueuePair : public Object
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaQueuePair();
    ~RdmaQueuePair() override;

    uint32_t GetQpn() const;             //!< \return local QP number
    uint32_t GetPeerQpn() const;         //!< \return remote QP number
    uint32_t GetLocalHost() const;       //!< \return local host index
    uint32_t GetRemoteHost() const;      //!< \return remote host index
    uint8_t GetPriority() const;         //!< \return data priority
    uint16_t GetSport() const;           //!< \return UDP source port
    uint32_t GetPortIndex() const;       //!< \return host port used
    uint64_t GetSndUna() const;          //!< \return bytes acknowledged (64-bit)
    uint64_t GetSndNxt() const;          //!< \return next byte offset to send (64-bit)
    uint64_t GetPostedBytes() const;     //!< \return bytes posted so far
    uint64_t GetRcvBytes() const;        //!< \return bytes accepted in order as responder
    uint32_t GetPendingMessages() const; //!< \return messages not yet acknowledged
    uint64_t GetRate() const;            //!< \return current CC rate (bit/s)
    Ptr<RdmaCongestionOps> GetCongestionOps() const; //!< \return the CC object
    uint64_t GetRetransmittedPackets() const;        //!< \return packets sent again
    uint64_t GetTimeouts() const;                    //!< \return RTO expiries
    uint32_t GetInitialPsn() const;                  //!< \return first PSN of this direction

    /**
     * Set the receiver of this QP end's completions (nullptr: none; the trace
     * sources still fire).
     * \param consumer the consumer (not owned)
     */
    void SetConsumer(RdmaQpConsumer* consumer);
    RdmaQpConsumer* GetConsumer() const; //!< \return the consumer (nullptr if none)

    /**
     * Set the serving side of this QP end (nullptr: none, responses at once).
     * \param responder the responder (not owned; must outlive the QP or detach)
     */
    void SetResponder(RdmaQpResponder* responder);
    RdmaQpResponder* GetResponder() const; //!< \return the responder (nullptr if none)

  protected:
    void DoDispose() override;

  private:
    friend class RdmaHostStack;

    bool HasDataToSend() const
    {
        return m_sndNxtPkt < m_postedPkts || !m_respJobs.empty();
    }

    /// Responder: READ responses still to send (PSN indices in the peer's space).
    struct RespJob
    {
        uint64_t startIdx{0}; //!< first response index of this (re-)execution
        uint64_t nextIdx{0};  //!< next response index to send
        uint64_t endIdx{0};   //!< one past the last
        uint64_t len{0};      //!< bytes of this (re-)execution
        uint64_t readyPs{0};  //!< RdmaQpResponder: first byte ready (ps); 0 with no gate
        double psPerByte{0};  //!< RdmaQpResponder: ps per byte of data readiness
    };

    // The members are grouped by the cache line they share (the alignas make the object
    // 64-byte aligned): a data frame's receiver reads lines 0 and 1, an ACK's receiver (the
    // requester) lines 0, 2, 3 and 5, so that a QP's state costs few lines per frame when
    // the fabric is larger than the caches.

    // line 0, after ns3::Object's header: identity, read on every frame and completion
    uint32_t m_qpn{0};
    uint32_t m_peerQpn{0}; //!< 0 until learnt from a frame (peer end on another rank)
    uint32_t m_localIp{0};
    uint32_t m_remoteIp{0};
    uint32_t m_port{0};
    uint32_t m_localHost{0};
    uint32_t m_remoteHost{0};
    uint16_t m_sport{0};
    uint8_t m_priority{3};
    bool m_active{false};  //!< in the port's active list
    bool m_nakSent{false}; //!< responder: a NAK for the current gap was sent
    bool m_readGap{false}; //!< requester: READ re-issued for the current gap
    bool m_cnpEver{false};

    // line 1: responder
    uint32_t m_rcvPsnBase{0};              //!< initial PSN of the peer's direction
    uint32_t m_unackedPkts{0};             //!< accepted since the last ACK
    uint64_t m_rcvNxtPkt{0};               //!< 64-bit index of the next expected packet
    uint64_t m_rcvBytes{0};                //!< bytes accepted
    uint64_t m_rcvMsgBytes{0};             //!< bytes of the message in progress
    uint64_t m_rcvMsgs{0};                 //!< messages completed (MSN)
    uint64_t m_unackedBytes{0};            //!< bytes accepted since the last ACK
    RdmaQpResponder* m_responder{nullptr}; //!< serving side (not owned; null: respond at once)
    RdmaQpConsumer* m_consumer{nullptr};   //!< receiver of completions (not owned)

    // line 2: requester, sequence state
    alignas(64) uint64_t m_sndUnaPkt{0};
    uint64_t m_sndUnaByte{0};
    uint64_t m_sndNxtPkt{0};
    uint64_t m_sndNxtByte{0};
    uint64_t m_maxSentPkt{0}; //!< one past the highest index ever sent
    uint64_t m_postedPkts{0};
    size_t m_curMsg{0}; //!< index in m_msgs of the message holding m_sndNxtPkt
    Ptr<RdmaCongestionOps> m_cc;

    // line 3: requester, pacing, ACKs and the retransmission timer (lazy: the event
    // re-arms itself if progress happened)
    uint64_t m_nextSendPs{0}; //!< pacing: earliest next send (picoseconds)
    Time m_lastProgress{0};
    uint64_t m_ackHigh{0}; //!< requester: highest cumulative ACK index received
    EventId m_rtoEvent;
    uint32_t m_sndPsnBase{0};   //!< initial PSN of this direction
    uint32_t m_pendingReads{0}; //!< requester: READ messages not yet completed
    uint32_t m_rtoBackoff{0};

    // line 4: what the frames of a message rarely need
    alignas(64) RdmaHostStack* m_stack{nullptr};
    uint64_t m_nextMsgId{0};
    uint64_t m_postedBytes{0};
    Time m_lastCnp{0};
    uint64_t m_retxPkts{0};
    uint64_t m_timeouts{0};
    // lines 4-5: the un-acknowledged messages; the deque's iterators (its last 64 bytes,
    // all that front(), [] and size() read) on line 5
    std::deque<RdmaMessage> m_msgs; //!< un-acknowledged messages
    // line 6
    std::deque<RespJob> m_respJobs; //!< responder: READ responses to send
};

} // namespace ns3

#endif /* RDMA_QUEUE_PAIR_H */
