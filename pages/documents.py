import streamlit as st

st.title("Documents")
st.info("This page is being built.")
