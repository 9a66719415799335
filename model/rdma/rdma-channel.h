/*
 * RdmaChannel: a full-duplex point-to-point link between two RdmaNetDevices
 * with a propagation delay. The sending device calls Transmit() when a frame
 * starts serialization; the frame reaches the peer's Receive() at
 * now + txTime + delay (in the peer node's context), one event per frame.
 *
 * In node event order (ns3/node-order.h) a frame's reception event takes the tie-break
 * its sending node reserved when the frame left, whichever event schedules it.
 *
 * Frames in flight in one direction arrive in the order they were sent, so each
 * direction keeps them in a FIFO and has at most ONE pending reception event (for
 * the head frame; the next one is scheduled when it is delivered). The simulator's
 * event set then holds one event per busy link direction instead of one per frame
 * in flight (a 1 us, 100 Gbps link carries ~12 frames), which keeps the scheduler's
 * heap small.
 *
 * A link whose two ends run on different MPI ranks is an RdmaRemoteChannel (built
 * only with ns-3's mpi module): a frame sent towards the other rank leaves through
 * SendRemote (batched per window, one MPI message per pair of ranks) and arrives there at
 * the same time, the lookahead being the link delay.
 */

#ifndef RDMA_CHANNEL_H
#define RDMA_CHANNEL_H

#include "rdma-net-device.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Full-duplex point-to-point channel for RdmaNetDevice.
 */
class RdmaChannel : public Channel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RdmaChannel();
    ~RdmaChannel() override;

    /**
     * Attach a device (at most two). Called by RdmaNetDevice::Attach.
     * \param dev the device
     * \return false if two devices are attached already
     */
    virtual bool Attach(Ptr<RdmaNetDevice> dev);

    /**
     * Deliver a frame to the peer of from: its Receive() runs at now + txTime + delay.
     * \param frame the frame (moved into the event)
     * \param from the sending device
     * \param txTime serialization time of the frame
     */
    void Transmit(RdmaQueuedFrame&& frame, Ptr<RdmaNetDevice> from, Time txTime);

    /**
     * As Transmit, for a frame in a pooled slot (the device's path: no copy). The
     * reception event owns the slot from now on.
     * \param slot the frame's slot
     * \param from the sending device
     * \param txTime serialization time of the frame
     */
    void TransmitSlot(RdmaFrameSlot* slot, RdmaNetDevice* from, Time txTime);

    /// \return the peer of dev (nullptr if none) \param dev one end
    Ptr<RdmaNetDevice> GetPeer(Ptr<const RdmaNetDevice> dev) const;
    Ptr<RdmaNetDevice> GetRdmaDevice(std::size_t i) const; //!< \return device i \param i 0/1
    Time GetDelay() const;                                 //!< \return propagation delay
    void SetDelay(Time delay);                             //!< set propagation delay
    uint64_t GetFramesDelivered() const; //!< \return frames handed to Transmit so far

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

    /**
     * Direction d (sent by device d) ends on another rank: its frames go to SendRemote.
     * \param d direction
     * \param remote flag
     */
    void SetRemoteDirection(uint8_t d, bool remote);

    /**
     * Send a frame of a remote direction (RdmaRemoteChannel); the base class has none.
     * \param slot the frame (owned by the call; the sending device reads it until txEndTs)
     * \param d direction (the sending end)
     * \param txEndTs absolute end of its serialization (Time steps)
     * \param arrivalTs absolute arrival time of its last bit (Time steps)
     * \param tie the reception event's tie-break in node event order (EventOrder)
     */
    virtual void SendRemote(RdmaFrameSlot* slot,
                            uint8_t d,
                            int64_t txEndTs,
                            int64_t arrivalTs,
                            uint64_t tie);

    /**
     * Hand a frame that arrived now to a device (as the reception event does).
     * \param slot the frame (owned by the call)
     * \param to the receiving device
     */
    static void DeliverSlot(RdmaFrameSlot* slot, RdmaNetDevice* to);

  private:
    friend class RdmaChannelDeliverEvent;

    /// Deliver the head frame of direction d (sent by m_dev[d]) and schedule the next.
    void Deliver(uint8_t d);
    /**
     * Schedule the reception event of direction d's head frame.
     * \param d direction
     * \param now the current time step (Simulator::Now(), known to the callers)
     */
    void ScheduleHead(uint8_t d, int64_t now);

    /// A frame on the wire.
    struct InFlight
    {
        RdmaFrameSlot* slot; //!< the frame
        uint64_t arrivalTs;  //!< absolute arrival time (Time steps)
        uint64_t tie;        //!< its reception event's tie-break (node event order)
    };

    /// Frames in flight in one direction (FIFO ring, power-of-two capacity).
    struct Direction
    {
        std::vector<InFlight> ring; //!< storage
        uint32_t head{0};           //!< index of the oldest frame
        uint32_t size{0};           //!< frames in flight
        bool scheduled{false};      //!< a reception event is pending
    };

    Direction m_dir[2];             //!< index = sending end
    Ptr<RdmaNetDevice> m_dev[2];    //!< the two ends
    std::size_t m_nDevices{0};      //!< attached devices
    Time m_delay;                   //!< propagation delay
    uint64_t m_frames{0};           //!< frames transmitted
    bool m_remote[2]{false, false}; //!< direction d ends on another rank
};

} // namespace ns3

#endif /* RDMA_CHANNEL_H */
