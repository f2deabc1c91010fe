package a;
public class A extends B {
  private int x;
  public A(int x) { this.x = x; }
  public static void main(String[] args) { }
  interface I { void m(); }
  enum E { X; void f() {} }
}
