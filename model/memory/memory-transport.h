/*
 * The transports of FabricMemoryModel: RDMA READ / WRITE on the RoCE fabric
 * (RoceMemoryTransport, served by a MemoryServer per memory node) and flows on
 * the flow-level backend (FlowMemoryTransport), both through the same
 * MemoryDevice model.
 */

#ifndef ASTRA_MEMORY_TRANSPORT_H
#define ASTRA_MEMORY_TRANSPORT_H

#include "fabric-memory-model.h"
#include "memory-server.h"

#include "ns3/flow-backend.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-queue-pair.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

class RdmaHostStack;

namespace astra
{

/**
 * \ingroup astra-sim
 * Memory messages as RDMA on the RoCE fabric: a load is an RDMA READ posted
 * by the NPU's host stack to the memory node's (completion: the last
 * response byte, RdmaQpConsumer::ReadComplete), a store an RDMA WRITE whose
 * completion is the memory server's zero-length SEND after the device wrote
 * the data (MemoryServer). One persistent QP per (NPU, memory node) on the
 * memory priority; its congestion control is the host stack's for that
 * priority (RdmaHostStack::CongestionControlByPriority).
 */
class RoceMemoryTransport : public MemoryTransport, private RdmaQpConsumer
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceMemoryTransport();
    ~RoceMemoryTransport() override;

    /**
     * \param stacks host stack of every NPU and memory node, by topology id (null elsewhere)
     * \param servers memory server of every memory node, by topology id (null elsewhere)
     * \param priority data priority of the memory QPs
     */
    void Setup(const std::vector<Ptr<RdmaHostStack>>& stacks,
               const std::vector<Ptr<MemoryServer>>& servers,
               uint8_t priority);
    /**
     * The devices of a memory node's link (utilisation samples and link bytes).
     * \param mem the memory node (topology id)
     * \param atMemory the device at the memory node's end
     * \param atPeer the device at the other end
     */
    void SetLinkDevices(uint32_t mem, Ptr<RdmaNetDevice> atMemory, Ptr<RdmaNetDevice> atPeer);

    void Post(uint32_t npu, uint32_t mem, uint64_t bytes, bool write, uint64_t cookie) override;
    std::string GetName() const override;
    double SampleLinkUtilisation(uint32_t mem) override;
    double GetLinkBytes(uint32_t mem) const override;
    Ptr<MemoryDevice> GetDevice(uint32_t mem) const override;
    /// \return bytes acknowledged on the NPUs' memory QPs (READ responses count as they arrive)
    uint64_t GetProgressCounter() const override;
    uint8_t GetPriority() const; //!< \return the memory QPs' priority
    uint32_t GetQpCount() const; //!< \return QPs opened
    /// \return the NPU-side QP to a memory node (null if not opened) \param npu NPU \param mem node
    Ptr<RdmaQueuePair> GetQp(uint32_t npu, uint32_t mem) const;

  protected:
    void DoDispose() override;

  private:
    void ReadComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info) override;
    void RxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info) override;

    /// A memory node's link: devices and the previous sample.
    struct Link
    {
        Ptr<RdmaNetDevice> atMemory; //!< device at the memory node
        Ptr<RdmaNetDevice> atPeer;   //!< device at the other end
        double lastMem{0};           //!< wire bytes sent by atMemory at the previous sample
        double lastPeer{0};          //!< wire bytes sent by atPeer at the previous sample
        Time lastTime{0};            //!< previous sample
    };

    std::vector<Ptr<RdmaHostStack>> m_stacks;
    std::vector<Ptr<MemoryServer>> m_servers;
    std::vector<Link> m_links; //!< by topology id
    uint8_t m_priority{4};
    std::unordered_map<uint64_t, Ptr<RdmaQueuePair>> m_qps; //!< (npu << 32 | mem)
};

/**
 * \ingroup astra-sim
 * Memory messages as flows of the flow-level backend on the same routes
 * (Topology::AppendRoute to and from memory nodes). A load: the request
 * reaches the node after the route's latency, the device schedules it
 * (MemoryDevice::Read) and the data flows back from its data start, crossing
 * the node's device as a shared resource of the backend (its bandwidth split
 * max-min among the node's flows) besides the route's links. A store: the data
 * flows at once (through the device resource), the device takes it from its
 * first byte's arrival (WriteStart) and writes it (WriteDone) after the last;
 * the completion reaches the NPU after the route's latency.
 */
class FlowMemoryTransport : public MemoryTransport, private MessageSink
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    FlowMemoryTransport();
    ~FlowMemoryTransport() override;

    /**
     * \param backend the flow-level backend (fluid model)
     * \param devices device of every memory node, by topology id (null elsewhere)
     */
    void Setup(Ptr<FlowBackend> backend, const std::vector<Ptr<MemoryDevice>>& devices);

    void Post(uint32_t npu, uint32_t mem, uint64_t bytes, bool write, uint64_t cookie) override;
    std::string GetName() const override;
    double SampleLinkUtilisation(uint32_t mem) override;
    double GetLinkBytes(uint32_t mem) const override;
    Ptr<MemoryDevice> GetDevice(uint32_t mem) const override;

  protected:
    void DoDispose() override;

  private:
    void MessageSent(const NetMessage& msg, uint64_t cookie) override;
    void MessageDelivered(const NetMessage& msg) override;

    /// One message in flight.
    struct Op
    {
        uint32_t npu{0};           //!< the NPU
        uint32_t mem{0};           //!< the memory node
        uint64_t bytes{0};         //!< payload
        bool write{false};         //!< store
        uint64_t cookie{0};        //!< the model's cookie
        MemoryDevice::Grant grant; //!< the device's slot
        bool used{false};          //!< slot in use
    };

    /// \return the route latency from a to b \param a source \param b destination
    Time Latency(uint32_t a, uint32_t b);
    uint32_t NewOp();
    void Finish(uint32_t op);
    static void ReadArrive(void* obj, uint64_t op, uint64_t);
    static void StartRead(void* obj, uint64_t op, uint64_t);
    static void WriteArrive(void* obj, uint64_t op, uint64_t);
    static void Done(void* obj, uint64_t op, uint64_t);

    Ptr<FlowBackend> m_backend;
    std::shared_ptr<const Topology> m_topo;
    std::vector<Ptr<MemoryDevice>> m_devices; //!< by topology id
    std::vector<uint32_t> m_resource;         //!< by topology id: shared resource id
    std::vector<uint32_t> m_link;             //!< by topology id: the memory node's link
    std::vector<double> m_bytesIn;            //!< by topology id: payload bytes into the node
    std::vector<double> m_bytesOut;           //!< by topology id: payload bytes out of it
    std::vector<Op> m_ops;
    std::vector<uint32_t> m_freeOps;
    std::unordered_map<uint64_t, Time> m_latency; //!< route latency by (a << 32 | b)
    std::vector<Topology::Hop> m_hops;            //!< scratch
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_TRANSPORT_H */
