/*
 * RdmaEventPool: class-specific operator new/delete for the per-frame events of the
 * fabric (transmit-complete, reception). Freed blocks go to a free list and are reused,
 * so the per-hop events cost no malloc/free once the pool has grown to the peak number
 * of events in flight. Memory is kept until the process exits. Not thread-safe: like
 * ns-3's default simulator, one simulation per process (thread).
 */

#ifndef RDMA_EVENT_POOL_H
#define RDMA_EVENT_POOL_H

#include <cstddef>
#include <new>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Free list of fixed-size blocks for objects of type T (use via RDMA_EVENT_POOLED).
 */
template <class T>
class RdmaEventPool
{
  public:
    /// \param size requested size \return a block of sizeof(T) bytes
    static void* Allocate(std::size_t size)
    {
        if (size != sizeof(T) || !s_free)
        {
            return ::operator new(size);
        }
        Node* n = s_free;
        s_free = n->next;
        return n;
    }

    /// \param p block from Allocate \param size its size
    static void Release(void* p, std::size_t size)
    {
        if (size != sizeof(T))
        {
            ::operator delete(p);
            return;
        }
        Node* n = static_cast<Node*>(p);
        n->next = s_free;
        s_free = n;
    }

  private:
    struct Node
    {
        Node* next;
    };

    static_assert(sizeof(T) >= sizeof(Node), "pooled type too small");
    static inline Node* s_free{nullptr}; //!< free blocks
};

} // namespace ns3

/// Inside a class definition: allocate the class's objects from RdmaEventPool.
#define RDMA_EVENT_POOLED(T)                                                                       \
    static void* operator new(std::size_t size)                                                    \
    {                                                                                              \
        return ns3::RdmaEventPool<T>::Allocate(size);                                              \
    }                                                                                              \
    static void operator delete(void* p, std::size_t size)                                         \
    {                                                                                              \
        ns3::RdmaEventPool<T>::Release(p, size);                                                   \
    }

#endif /* RDMA_EVENT_POOL_H */
