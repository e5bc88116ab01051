#include "consumer/image_budget.hpp"

#include "consumer/stream.hpp"

#include <iterator>

namespace openetw::consumer {

void ImageBudget::hold(Stream *s, std::size_t bytes)
{
    drop(s);
    lru_.emplace_back(s, bytes);
    where_[s] = std::prev(lru_.end());
    total_ += bytes;
    while (total_ > limit_ && lru_.front().first != s) {
        Stream *victim = lru_.front().first;
        total_ -= lru_.front().second;
        where_.erase(victim);
        lru_.pop_front();
        victim->release_image();
    }
}

void ImageBudget::touch(Stream *s)
{
    if (!lru_.empty() && lru_.back().first == s)
        return; // the usual case: the same stream again
    auto it = where_.find(s);
    if (it != where_.end())
        lru_.splice(lru_.end(), lru_, it->second);
}

void ImageBudget::drop(Stream *s)
{
    auto it = where_.find(s);
    if (it == where_.end())
        return;
    total_ -= it->second->second;
    lru_.erase(it->second);
    where_.erase(it);
}

} // namespace openetw::consumer
