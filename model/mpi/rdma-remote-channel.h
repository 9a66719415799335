/*
 * RdmaRemoteChannel: an RdmaChannel whose two ends run on different MPI ranks
 * (ns-3 system ids), as ns-3's PointToPointRemoteChannel is for point-to-point
 * links. Built only when the module is compiled with ns-3's mpi module.
 */

#ifndef RDMA_REMOTE_CHANNEL_H
#define RDMA_REMOTE_CHANNEL_H

#include "ns3/packet.h"
#include "ns3/rdma-channel.h"

namespace ns3
{

/**
 * \ingroup astra-sim
 * Full-duplex RDMA link between devices on two ranks.
 *
 * Every rank builds the same nodes and devices (ns-3's distributed model: node ids and
 * device indices agree across ranks). A frame sent by the local end towards the remote
 * one is serialized, meta (RdmaMeta, which carries everything a receiver learns) first
 * and then the frame's bytes if it has them, and handed to MpiInterface::SendPacket with
 * its arrival time (now + serialization + delay). The peer rank's MpiReceiver on the
 * receiving device rebuilds the frame and passes it to RdmaNetDevice::Receive at that
 * time, in the node's context. Frames between two local ends (both ranks equal) go the
 * local way. The lookahead of ns-3's distributed simulators is the channel's Delay
 * attribute: it must be > 0 on a link crossing ranks.
 */
class RdmaRemoteChannel : public RdmaChannel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RdmaRemoteChannel();
    ~RdmaRemoteChannel() override;

    bool Attach(Ptr<RdmaNetDevice> dev) override;

    uint64_t GetFramesSentRemote() const;     //!< \return frames sent to the other rank
    uint64_t GetFramesReceivedRemote() const; //!< \return frames received from it

    /**
     * Serialize a frame for the other rank.
     * \param frame the frame
     * \param tie its reception event's tie-break in node event order
     * \return the message packet
     */
    static Ptr<Packet> Encode(const RdmaQueuedFrame& frame, uint64_t tie = 0);
    /**
     * Rebuild a frame from Encode's packet.
     * \param p the message packet
     * \param frame filled (inPort 0)
     * \param tie if not null, filled with Encode's tie-break
     * \return false if the packet is not an encoded frame
     */
    static bool Decode(Ptr<Packet> p, RdmaQueuedFrame& frame, uint64_t* tie = nullptr);

    /**
     * \internal A frame for end `to` arrived from the other rank (MpiReceiver callback):
     * delivered to the device now, or in node event order rescheduled now under the
     * tie-break its sender reserved (this event, scheduled by ns-3's MPI code, runs first
     * in its time stamp).
     * \param to receiving end
     * \param p the message
     */
    void ReceiveRemote(uint8_t to, Ptr<Packet> p);

  protected:
    void SendRemote(const RdmaQueuedFrame& frame,
                    uint8_t d,
                    int64_t arrivalTs,
                    uint64_t tie) override;

  private:
    /// Node event order: deliver a received frame \param slot the frame \param to end
    void DeliverRemote(RdmaFrameSlot* slot, uint8_t to);

    uint64_t m_sentRemote{0}; //!< frames sent to the other rank
    uint64_t m_rcvdRemote{0}; //!< frames received from it
};

} // namespace ns3

#endif /* RDMA_REMOTE_CHANNEL_H */
