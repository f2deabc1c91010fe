#include <vector>
namespace ns {
class Widget : public Base {
 public:
  Widget(int x);
  void draw() const { }
};
template <typename T> T maxof(T a, T b) { return a > b ? a : b; }
}
int Widget::size() const { return 1; }
static struct foo *make(void) { return 0; }
typedef struct { int a; } pair_t;
