/*
 * RdmaRemoteChannel: an RdmaChannel whose two ends run on different MPI ranks
 * (ns-3 system ids), as ns-3's PointToPointRemoteChannel is for point-to-point
 * links. Built only when the module is compiled with ns-3's mpi module.
 */

#ifndef RDMA_REMOTE_CHANNEL_H
#define RDMA_REMOTE_CHANNEL_H

#include "ns3/packet.h"
#include "ns3/rdma-channel.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Full-duplex RDMA link between devices on two ranks.
 *
 * Every rank builds the same nodes and devices (ns-3's distributed model: node ids and
 * device indices agree across ranks). A frame sent by the local end towards the remote
 * one is encoded (Encode: RdmaMeta, which carries everything a receiver learns, and the
 * frame's bytes if it has them) with its arrival time (now + serialization + delay) and
 * the receiving device into a batch for the peer's rank (the sending rank schedules no
 * reception event; the frame's slot is returned at the first exchange after the end of its
 * serialization, which the sending device reads it until). The batches of a granted-time
 * window travel at the window's end, one MPI message per pair of ranks (ExchangeFrames,
 * called when ns-3's DistributedSimulatorImpl starts the window's synchronisation, before
 * it reports its next event time); the receiving rank decodes each frame (Decode) and
 * schedules its delivery to RdmaNetDevice::Receive at the arrival time, in the node's
 * context. The system layer's notices (Distributed::PostNotice: a slot gate's issue notice,
 * with its arrival time, tie-break and context) travel in the same batches and are
 * scheduled the same way. Frames between two local ends (both ranks equal) go the local way. The
 * lookahead of ns-3's distributed simulators is the channel's Delay attribute: it must be
 * > 0 on a link crossing ranks. Needs ns-3's granted-time-window engine
 * (ns3::DistributedSimulatorImpl).
 */
class RdmaRemoteChannel : public RdmaChannel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RdmaRemoteChannel();
    ~RdmaRemoteChannel() override;

    /**
     * Attach a device. With both attached, every end of this rank whose peer is on another
     * rank is registered as a receiving end of frames from that rank.
     * \param dev the device
     * \return false if the channel has two devices already
     * \throws astra::InputError for a link across ranks when the simulator implementation
     *         is not ns-3's granted-time-window engine
     */
    bool Attach(Ptr<RdmaNetDevice> dev) override;

    uint64_t GetFramesSentRemote() const;     //!< \return frames sent to the other rank
    uint64_t GetFramesReceivedRemote() const; //!< \return frames received from it

    /**
     * Serialize a frame for another rank: the one place that writes a frame's fields.
     * \param frame the frame
     * \param tie its reception event's tie-break in node event order (ns3/node-order.h)
     * \param out its encoding is appended
     */
    static void Encode(const RdmaQueuedFrame& frame, uint64_t tie, std::vector<uint8_t>& out);
    /**
     * Rebuild a frame from Encode's bytes: the one place that reads them.
     * \param p start of an encoded frame
     * \param end end of the buffer
     * \param frame filled (inPort 0)
     * \param tie filled with Encode's tie-break
     * \return the byte after the frame's encoding, nullptr if [p, end) does not start with
     *         an encoded frame
     */
    static const uint8_t* Decode(const uint8_t* p,
                                 const uint8_t* end,
                                 RdmaQueuedFrame& frame,
                                 uint64_t& tie);

    /**
     * \internal Exchange the frames batched since the last call with every other rank:
     * one message to and one from each (possibly empty), each received frame scheduled for
     * its arrival. Every rank calls it once per granted-time window, as ns-3's
     * GrantedTimeWindowMpiInterface::ReceiveMessages starts (MPI profiling interface,
     * model/mpi/astra-mpi-profile.cc), before DistributedSimulatorImpl computes the
     * rank's next event time: no frame is in flight when the ranks agree on the window.
     * Does nothing unless a link crosses ranks under the granted-time-window engine.
     */
    static void ExchangeFrames();

  protected:
    void DoDispose() override;
    void SendRemote(RdmaFrameSlot* slot,
                    uint8_t d,
                    int64_t txEndTs,
                    int64_t arrivalTs,
                    uint64_t tie) override;

  private:
    friend class RdmaRemoteArrivalEvent;

    /**
     * A frame from the other rank arrives now at end `to`.
     * \param to receiving end
     * \param slot the frame (owned by the call)
     */
    void Arrive(uint8_t to, RdmaFrameSlot* slot);

    uint64_t m_sentRemote{0};     //!< frames sent to the other rank
    uint64_t m_rcvdRemote{0};     //!< frames received from it
    uint32_t m_peerRank[2]{0, 0}; //!< rank of the device at the far end of direction d
};

} // namespace ns3

#endif /* RDMA_REMOTE_CHANNEL_H */
