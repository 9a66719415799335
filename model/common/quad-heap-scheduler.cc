#include "quad-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(QuadHeapScheduler);

namespace
{

/// \param p array position of a node (> 3) \return the position of its parent
inline std::size_t
Parent(std::size_t p)
{
    return p / 4 + 2;
}

/// \param p array position of a node \return the position of its first child
inline std::size_t
FirstChild(std::size_t p)
{
    return 4 * p - 8;
}

/**
 * Place (k, v) at position p or above it, moving later parents down.
 * \param keys key array \param pl payload array \param p start position
 * \param k key \param v payload
 */
template <class K, class V>
inline void
SiftUp(K* keys, V* pl, std::size_t p, K k, V v)
{
    while (p > 3)
    {
        const std::size_t q = Parent(p);
        if (!(k < keys[q]))
        {
            break;
        }
        keys[p] = keys[q];
        pl[p] = pl[q];
        p = q;
    }
    keys[p] = k;
    pl[p] = v;
}

/**
 * The position of the smallest key among positions [c, end) (at most four).
 * \param keys key array \param c first child position \param end first position past the heap
 * \return position of the smallest key
 */
template <class K>
inline std::size_t
MinChild(const K* keys, std::size_t c, std::size_t end)
{
    if (c + 3 < end)
    {
        // branch-free: the outcome of each comparison is a coin toss in a heap
        const K k0 = keys[c];
        const K k1 = keys[c + 1];
        const K k2 = keys[c + 2];
        const K k3 = keys[c + 3];
        const bool b01 = k1 < k0;
        const bool b23 = k3 < k2;
        const std::size_t a = c + b01;
        const std::size_t b = c + 2 + b23;
        const K ka = b01 ? k1 : k0;
        const K kb = b23 ? k3 : k2;
        return kb < ka ? b : a;
    }
    std::size_t m = c;
    for (std::size_t j = c + 1; j < end; ++j)
    {
        if (keys[j] < keys[m])
        {
            m = j;
        }
    }
    return m;
}

} // namespace

TypeId
QuadHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::QuadHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<QuadHeapScheduler>();
    return tid;
}

QuadHeapScheduler::QuadHeapScheduler() = default;

QuadHeapScheduler::~QuadHeapScheduler()
{
    std::free(m_keys);
    delete[] m_payloads;
}

void
QuadHeapScheduler::Grow()
{
    const std::size_t cap = m_capacity == 0 ? 1024 : 2 * m_capacity;
    const std::size_t positions = cap + kBase;
    const std::size_t bytes = ((positions * sizeof(Key) + 63) / 64) * 64;
    Key* keys = static_cast<Key*>(std::aligned_alloc(64, bytes));
    if (!keys)
    {
        throw std::bad_alloc();
    }
    Payload* payloads = new Payload[positions];
    if (m_size > 0)
    {
        std::memcpy(static_cast<void*>(keys + kBase), m_keys + kBase, m_size * sizeof(Key));
        std::memcpy(static_cast<void*>(payloads + kBase),
                    m_payloads + kBase,
                    m_size * sizeof(Payload));
    }
    std::free(m_keys);
    delete[] m_payloads;
    m_keys = keys;
    m_payloads = payloads;
    m_capacity = cap;
}

void
QuadHeapScheduler::Insert(const Scheduler::Event& ev)
{
    InsertWithTie(ev, ev.key.m_uid);
}

void
QuadHeapScheduler::InsertWithTie(const Scheduler::Event& ev, uint64_t tie)
{
    if (m_size == m_capacity)
    {
        Grow();
    }
    const std::size_t p = kBase + m_size;
    ++m_size;
    SiftUp(m_keys,
           m_payloads,
           p,
           (Key(ev.key.m_ts) << 64) | tie,
           Payload{ev.impl, ev.key.m_context, ev.key.m_uid});
}

bool
QuadHeapScheduler::IsEmpty() const
{
    return m_size == 0;
}

Scheduler::Event
QuadHeapScheduler::PeekNext() const
{
    NS_ASSERT(m_size > 0);
    const Payload& v = m_payloads[kBase];
    Scheduler::Event ev;
    ev.impl = v.impl;
    ev.key.m_ts = static_cast<uint64_t>(m_keys[kBase] >> 64);
    ev.key.m_uid = v.uid;
    ev.key.m_context = v.ctx;
    return ev;
}

Scheduler::Event
QuadHeapScheduler::RemoveNext()
{
    const Scheduler::Event ev = PeekNext();
    --m_size;
    if (m_size == 0)
    {
        return ev;
    }
    const std::size_t end = kBase + m_size; // the old last position, now outside the heap
    const Key k = m_keys[end];
    const Payload v = m_payloads[end];
    // walk the root's hole down to a leaf along the smaller children...
    std::size_t p = kBase;
    for (std::size_t c = FirstChild(p); c < end; c = FirstChild(p))
    {
        const std::size_t m = MinChild(m_keys, c, end);
        m_keys[p] = m_keys[m];
        m_payloads[p] = m_payloads[m];
        p = m;
    }
    // ...and lift the former last element from there
    SiftUp(m_keys, m_payloads, p, k, v);
    return ev;
}

bool
QuadHeapScheduler::IsPendingAt(uint64_t ts, uint32_t uid) const
{
    // the pending events of time stamp ts (none is earlier) form a subtree at the root
    const std::size_t end = kBase + m_size;
    m_walk.clear();
    if (m_size > 0 && static_cast<uint64_t>(m_keys[kBase] >> 64) == ts)
    {
        m_walk.push_back(kBase);
    }
    while (!m_walk.empty())
    {
        const std::size_t p = m_walk.back();
        m_walk.pop_back();
        if (m_payloads[p].uid == uid)
        {
            return true;
        }
        for (std::size_t c = FirstChild(p), e = std::min(c + 4, end); c < e; ++c)
        {
            if (static_cast<uint64_t>(m_keys[c] >> 64) == ts)
            {
                m_walk.push_back(c);
            }
        }
    }
    return false;
}

void
QuadHeapScheduler::Remove(const Scheduler::Event& ev)
{
    const std::size_t end = kBase + m_size;
    std::size_t p = kBase;
    while (p < end && m_payloads[p].uid != ev.key.m_uid)
    {
        ++p;
    }
    NS_ASSERT_MSG(p < end, "QuadHeapScheduler::Remove: event not pending");
    if (p == end)
    {
        return;
    }
    --m_size;
    const std::size_t last = kBase + m_size;
    if (p == last)
    {
        return;
    }
    const Key k = m_keys[last];
    const Payload v = m_payloads[last];
    if (p > kBase && k < m_keys[Parent(p)])
    {
        SiftUp(m_keys, m_payloads, p, k, v);
        return;
    }
    // sift down from p, the heap now ending at `last`
    for (std::size_t c = FirstChild(p); c < last; c = FirstChild(p))
    {
        const std::size_t m = MinChild(m_keys, c, last);
        if (!(m_keys[m] < k))
        {
            break;
        }
        m_keys[p] = m_keys[m];
        m_payloads[p] = m_payloads[m];
        p = m;
    }
    m_keys[p] = k;
    m_payloads[p] = v;
}

} // namespace astra
} // namespace ns3
